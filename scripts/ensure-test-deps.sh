#!/usr/bin/env bash
# Installs what the tests need from Debian's packages when it is missing: Chromium and its
# headless shell for the end-to-end tests, OpenSSH's server for the SSH tests, and for the
# application tests nginx (a large file served through the proxy) and Jupyter Notebook (a real
# app with cookies and WebSockets), PostgreSQL and MariaDB for the database tests, kubectl for
# the Kubernetes tests, TigerVNC's Xvnc with a few X clients for the VNC desktop tests, xrdp for
# the RDP ones, Swift (an S3 server) for the storage tests and HAProxy for the high-availability
# ones.
# Browser downloads by test tools do not work on our machines, so Chromium always comes from apt.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The end-to-end tests run its headless shell (playwright.config.ts says why); the benches and
# people use the full browser.
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
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
# The VNC desktop tests: TigerVNC's Xvnc (an X server served over RFB) and its vncpasswd (in
# tigervnc-tools since Debian 12), then X clients that change its screen and clipboard: xsetroot
# (x11-xserver-utils), xterm, xclip, xwd and xwud (x11-apps), xwininfo and xdpyinfo (x11-utils).
[ -x /usr/bin/Xvnc ] || missing+=(tigervnc-standalone-server)
command -v vncpasswd >/dev/null || missing+=(tigervnc-tools)
[ -x /usr/bin/xsetroot ] || missing+=(x11-xserver-utils)
[ -x /usr/bin/xterm ] || missing+=(xterm)
[ -x /usr/bin/xclip ] || missing+=(xclip)
[ -x /usr/bin/xwud ] || missing+=(x11-apps)
[ -x /usr/bin/xwininfo ] || missing+=(x11-utils)
# The RDP desktop tests: xrdp, run on its own in front of an Xvnc through its VNC module (no
# session manager or Xorg driver), and openssl for its test certificate.
[ -x /usr/sbin/xrdp ] || missing+=(xrdp)
command -v openssl >/dev/null || missing+=(openssl)
# The RDP tests with Network Level Authentication: FreeRDP's shadow server, which requires
# CredSSP (NTLM against a SAM file whose hash openssl makes) and shows an Xvnc's screen.
[ -x /usr/bin/freerdp-shadow-cli ] || missing+=(freerdp2-shadow-x11)
# An S3-compatible object store for the storage tests: OpenStack Swift with its s3api middleware,
# run as four servers on loopback (proxy, account, container, object; python3-swift comes with
# them) over rings built by swift-ring-builder (in swift).
[ -x /usr/bin/swift-ring-builder ] || missing+=(swift)
[ -x /usr/bin/swift-proxy-server ] || missing+=(swift-proxy)
[ -x /usr/bin/swift-account-server ] || missing+=(swift-account)
[ -x /usr/bin/swift-container-server ] || missing+=(swift-container)
[ -x /usr/bin/swift-object-server ] || missing+=(swift-object)
# HAProxy for the high-availability tests, in front of several Postern instances.
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
# sudo for the host user tests: the node service writes /etc/sudoers.d files that visudo checks.
[ -x /usr/sbin/visudo ] || missing+=(sudo)
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
