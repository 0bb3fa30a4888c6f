import { agentPaths } from '@postern/contracts';

/** A word for bash, single-quoted: nothing inside is expanded. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export interface InstallScriptOptions {
  /** The proxy's public base URL (`publicBaseUrl`), with no trailing slash. */
  baseUrl: string;
  token: string;
}

/**
 * The bash script `GET /scripts/:token/install-node.sh` serves: run as root on a host, it makes
 * that host an agentless OpenSSH server of the cluster. The only values the server puts in are
 * its own URL and the token, shell-quoted; everything the host supplies (its name, address and
 * key) goes into the JSON body only after a character allowlist, so nothing can break out.
 * See docs/nodes.md for what it does and the environment it honours.
 */
export function installNodeScript({ baseUrl, token }: InstallScriptOptions): string {
  return `#!/usr/bin/env bash
# Postern: makes this host an agentless OpenSSH server of a Postern cluster.
# Run it as root. It registers the host with the proxy, makes sshd trust the cluster's user CA
# and present a host certificate from the cluster's host CA, and reloads sshd. Running it again
# replaces what an earlier run wrote.
#
# Environment:
#   POSTERN_NODE_ADDR     host:port the proxy dials (default: the FQDN and port 22)
#   POSTERN_SSHD_DIR      OpenSSH's configuration directory (default: /etc/ssh)
#   POSTERN_SSHD_CONFIG   the sshd_config file (default: sshd_config in that directory)
#   POSTERN_SSHD_RELOAD   command that reloads sshd (default: systemctl reload ssh or sshd,
#                         else SIGHUP to the oldest sshd process)
#   POSTERN_INSECURE_TLS  1 to accept a proxy certificate curl cannot verify (the self-signed
#                         certificate of a default install)
set -euo pipefail

proxy_url=${shellQuote(baseUrl)}
join_token=${shellQuote(token)}

sshd_dir="\${POSTERN_SSHD_DIR:-/etc/ssh}"
sshd_config="\${POSTERN_SSHD_CONFIG:-$sshd_dir/sshd_config}"
host_key="$sshd_dir/ssh_host_ed25519_key"
host_cert_file="$host_key-cert.pub"
user_ca_file="$sshd_dir/postern_user_ca.pub"
begin_marker='# BEGIN postern'
end_marker='# END postern'

fail() {
  echo "postern: $*" >&2
  exit 1
}

command -v curl >/dev/null || fail "curl is needed"
command -v ssh-keygen >/dev/null || fail "ssh-keygen is needed: install OpenSSH first"
[ -f "$sshd_config" ] || fail "no sshd configuration at $sshd_config (set POSTERN_SSHD_CONFIG)"
[ -w "$sshd_dir" ] && [ -w "$sshd_config" ] || fail "cannot write to $sshd_dir: run as root"

curl_opts=(-fsS)
if [ "\${POSTERN_INSECURE_TLS:-}" = 1 ]; then curl_opts+=(-k); fi

# The host key the certificate is for: OpenSSH's own Ed25519 key, made if the host has none.
if [ ! -f "$host_key" ]; then
  ssh-keygen -q -t ed25519 -N '' -C '' -f "$host_key"
elif [ ! -f "$host_key.pub" ]; then
  ssh-keygen -y -f "$host_key" >"$host_key.pub"
fi
read -r key_type key_data _ <"$host_key.pub" || true
[ -n "\${key_data:-}" ] || fail "cannot read the host key $host_key.pub"

node_hostname="$(hostname)"
node_addr="\${POSTERN_NODE_ADDR:-$(hostname -f 2>/dev/null || hostname):22}"
node_os="$(uname -s | tr '[:upper:]' '[:lower:]')"

# Values go into the JSON body only if they hold nothing JSON or the shell would read specially,
# so no escaping is needed (and nothing the host supplies can change the request's shape).
safe='^[][A-Za-z0-9 ._:/+=@-]*$'
for value in "$join_token" "$node_hostname" "$node_addr" "$key_type $key_data" "$node_os"; do
  [[ $value =~ $safe ]] || fail "unexpected characters in '$value'"
done
body="$(printf '{"token":"%s","hostname":"%s","addr":"%s","hostPublicKey":"%s","subKind":"openssh","os":"%s"}' \\
  "$join_token" "$node_hostname" "$node_addr" "$key_type $key_data" "$node_os")"

response="$(printf '%s' "$body" | curl "\${curl_opts[@]}" -X POST -H 'Content-Type: application/json' \\
  --data-binary @- "$proxy_url${agentPaths.join}")" ||
  fail "the proxy refused to register this host: the link may have expired; ask for a new one"

# A string field of the answer (the first element, for a list). The server's values hold no
# quotes or backslashes; anything else is refused rather than half-read.
field() {
  local re='"'"$1"'":[[]?"([^"\\]*)"'
  [[ $response =~ $re ]] || fail "unexpected answer from the proxy: no $1"
  printf '%s' "\${BASH_REMATCH[1]}"
}
node_id="$(field nodeId)"
cluster_name="$(field clusterName)"
host_cert="$(field hostCertificate)"
user_ca="$(field userCaKeys)"

umask 022
printf '%s\\n' "$user_ca" >"$user_ca_file"
printf '%s\\n' "$host_cert" >"$host_cert_file"

# The rest of sshd_config, without the block an earlier run wrote.
rest="$(awk -v b="$begin_marker" -v e="$end_marker" '$0 == b { skip = 1; next } $0 == e { skip = 0; next } !skip' "$sshd_config")"
block="$begin_marker
# Written by the Postern install script (cluster $cluster_name); running it again replaces it.
TrustedUserCAKeys $user_ca_file
HostCertificate $host_cert_file"
# A certificate is presented only with its key loaded: a config that names host keys gets ours.
if printf '%s\\n' "$rest" | awk 'tolower($1) == "hostkey" { found = 1 } END { exit !found }' &&
  ! printf '%s\\n' "$rest" | awk -v k="$host_key" 'tolower($1) == "hostkey" && $2 == k { found = 1 } END { exit !found }'; then
  block="$block
HostKey $host_key"
fi
block="$block
$end_marker"

# At the top: sshd keeps the first value it reads for a keyword, and lines after a Match block
# would belong to that block.
tmp="$(mktemp "$sshd_config.postern.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
printf '%s\\n%s\\n' "$block" "$rest" >"$tmp"
sshd_bin="$(command -v sshd || echo /usr/sbin/sshd)"
if [ -x "$sshd_bin" ]; then
  "$sshd_bin" -t -f "$tmp" || fail "sshd refuses the new configuration; $sshd_config is unchanged"
fi
# Rewritten in place, so the file keeps its owner and mode.
cat "$tmp" >"$sshd_config"

if [ -n "\${POSTERN_SSHD_RELOAD:-}" ]; then
  bash -c "$POSTERN_SSHD_RELOAD" || fail "POSTERN_SSHD_RELOAD failed: reload sshd yourself"
else
  systemctl reload ssh 2>/dev/null || systemctl reload sshd 2>/dev/null || pkill -HUP -o -x sshd ||
    fail "could not reload sshd: reload it yourself so that it uses the certificate"
fi

echo "This host is now server $node_id ($node_hostname, $node_addr) of cluster $cluster_name."
`;
}

/** What an unknown or expired token's link serves: a script that says so and fails. */
export const invalidTokenScript = `#!/bin/sh
echo "postern: this install link is not valid (or no longer valid): ask your administrator for a new one" >&2
exit 1
`;
