import type { z } from 'zod';
import { shellQuote, type InstallScriptOptions } from './install-script.js';

/**
 * What install-app.sh, install-database.sh and install-desktop.sh share: a bash script that runs `postern agent`
 * serving one resource (`--app name=uri`, `--db name=uri`), joined with the link's token; as
 * root with systemd, as a service that starts at boot. Every value the server puts in is
 * shell-quoted, and was checked first: the name is a DNS label and the uri holds only
 * URL characters (checked by the link's schema, contracts/install-links.ts), so none needs quoting anywhere the script or systemd
 * puts it either.
 */
export interface AgentResource {
  /** The agent's flag (`--app`, `--db`, `--desktop`) and the service's and files' prefix. */
  kind: 'app' | 'db' | 'desktop';
  /** How the script names the kind to people: `application`, `database`. */
  noun: string;
  name: string;
  uri: string;
}

/** Why a link's query is refused, `field: message`, for badInstallLinkScript. */
export function queryProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`;
}

export function agentInstallScript(options: InstallScriptOptions & AgentResource): string {
  const { baseUrl, token, kind, noun, name, uri } = options;
  const service = `postern-${kind}-${name}`;
  return `#!/usr/bin/env bash
# Postern: serves the ${noun} ${name} from this host through a Postern agent.
# Run it on a host that reaches ${uri}. It starts \`postern agent\` with that ${noun}, joined to the
# cluster with the token in this link. As root with systemd, the agent becomes the service
# ${service} (running the script again replaces it); otherwise it runs in the foreground.
#
# Environment:
#   POSTERN_BIN           the postern command (default: postern on the PATH)
#   POSTERN_DATA_DIR      where the agent keeps its key and identity (default:
#                         /var/lib/postern/${kind}-${name} as root, ~/.postern/${kind}-${name} otherwise)
#   POSTERN_INSECURE_TLS  1 to accept a proxy certificate nobody vouches for (the self-signed
#                         certificate of a default install)
#   POSTERN_FOREGROUND    1 to run the agent in the foreground even as root with systemd
set -euo pipefail

proxy_url=${shellQuote(baseUrl)}
join_token=${shellQuote(token)}
resource_kind=${shellQuote(kind)}
resource_name=${shellQuote(name)}
resource_uri=${shellQuote(uri)}
service="postern-$resource_kind-$resource_name"

fail() {
  echo "postern: $*" >&2
  exit 1
}

postern_bin="\${POSTERN_BIN:-$(command -v postern || true)}"
[ -n "$postern_bin" ] || fail "the postern command is not on this host: install Postern first, or set POSTERN_BIN"

if [ "$(id -u)" -eq 0 ]; then
  data_dir="\${POSTERN_DATA_DIR:-/var/lib/postern/$resource_kind-$resource_name}"
else
  data_dir="\${POSTERN_DATA_DIR:-$HOME/.postern/$resource_kind-$resource_name}"
fi
args=(agent --proxy "$proxy_url" --token "$join_token" "--$resource_kind" "$resource_name=$resource_uri" --data-dir "$data_dir")
if [ "\${POSTERN_INSECURE_TLS:-}" = 1 ]; then args+=(--insecure); fi

if [ "\${POSTERN_FOREGROUND:-}" = 1 ] || [ "$(id -u)" -ne 0 ] || ! command -v systemctl >/dev/null; then
  echo "postern: serving $resource_name ($resource_uri) through $proxy_url; Ctrl-C stops it" >&2
  exec "$postern_bin" "\${args[@]}"
fi

# The service runs a wrapper holding the command, quoted by bash: systemd's own quoting differs.
umask 077
mkdir -p /etc/postern
wrapper="/etc/postern/$resource_kind-$resource_name.sh"
{
  echo '#!/usr/bin/env bash'
  printf 'exec'
  printf ' %q' "$postern_bin" "\${args[@]}"
  printf '\\n'
} >"$wrapper"
chmod 700 "$wrapper"
cat >"/etc/systemd/system/$service.service" <<UNIT
[Unit]
Description=Postern agent serving the ${noun} $resource_name
After=network-online.target
Wants=network-online.target

[Service]
ExecStart=$wrapper
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable --now "$service.service"
echo "postern: $resource_name ($resource_uri) is served through $proxy_url by the service $service"
`;
}

/** What a link with a bad name or uri serves: a script that says which and fails. */
export function badInstallLinkScript(why: string): string {
  return `#!/bin/sh
echo ${shellQuote(`postern: this install link is not valid: ${why}`)} >&2
exit 1
`;
}
