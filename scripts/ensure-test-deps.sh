#!/usr/bin/env bash
# Installs what the tests need from Debian's packages when it is missing: Chromium for the
# end-to-end tests, OpenSSH's server for the SSH tests, and for the application tests nginx (a
# large file served through the proxy) and Jupyter Notebook (a real app with cookies and
# WebSockets), PostgreSQL and MariaDB for the database tests, and kubectl for the Kubernetes
# tests. Browser downloads by test tools do not work on our machines, so Chromium always comes
# from apt.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/jupyter-notebook ] || missing+=(jupyter-notebook)
# kubectl for the Kubernetes tests, which run the real client against a fake API server. Debian's
# is 1.20 (SPDY only); the tests pick the transports the installed kubectl has.
command -v kubectl >/dev/null || missing+=(kubernetes-client)
# PostgreSQL's server binaries for the database tests' own clusters, and psql/pgbench.
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
[ -x /usr/bin/psql ] || missing+=(postgresql-client)
# MariaDB's server for the MySQL tests' own instances (mariadb-install-db comes with it), and
# the mariadb client they run SQL through.
[ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
[ -x /usr/bin/mariadb ] || missing+=(mariadb-client)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing test dependencies: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
