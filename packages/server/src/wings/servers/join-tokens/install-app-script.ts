import { appNameSchema, appUriSchema } from '@postern/contracts';
import { z } from 'zod';
import { shellQuote, type InstallScriptOptions } from './install-script.js';

/**
 * `?name=grafana&uri=http://localhost:3000`: the app resource's rules, and a uri of characters
 * that need no quoting anywhere the script or systemd puts them.
 */
export const installAppQuerySchema = z.object({
  name: appNameSchema,
  uri: appUriSchema.refine((uri) => /^[\w.~:/?#[\]@!$&()*+,;=%-]+$/.test(uri), {
    message: 'uri: only URL characters (no quotes, spaces or backslashes)',
  }),
});

/**
 * The bash script `GET /scripts/:token/install-app.sh?name=&uri=` serves: run on a host that
 * reaches the app, it runs `postern agent --app name=uri`, joined with the link's token; as root
 * with systemd, as a service that starts at boot. Every value the server puts in is shell-quoted
 * and was checked by installAppQuerySchema. See docs/apps.md, "Apps behind an agent".
 */
export function installAppScript(
  options: InstallScriptOptions & { name: string; uri: string },
): string {
  const { baseUrl, token, name, uri } = options;
  return `#!/usr/bin/env bash
# Postern: serves the application ${name} from this host through a Postern agent.
# Run it on a host that reaches ${uri}. It starts \`postern agent\` with that app, joined to the
# cluster with the token in this link. As root with systemd, the agent becomes the service
# postern-app-${name} (running the script again replaces it); otherwise it runs in the foreground.
#
# Environment:
#   POSTERN_BIN           the postern command (default: postern on the PATH)
#   POSTERN_DATA_DIR      where the agent keeps its key and identity (default:
#                         /var/lib/postern/app-${name} as root, ~/.postern/app-${name} otherwise)
#   POSTERN_INSECURE_TLS  1 to accept a proxy certificate nobody vouches for (the self-signed
#                         certificate of a default install)
#   POSTERN_FOREGROUND    1 to run the agent in the foreground even as root with systemd
set -euo pipefail

proxy_url=${shellQuote(baseUrl)}
join_token=${shellQuote(token)}
app_name=${shellQuote(name)}
app_uri=${shellQuote(uri)}

fail() {
  echo "postern: $*" >&2
  exit 1
}

postern_bin="\${POSTERN_BIN:-$(command -v postern || true)}"
[ -n "$postern_bin" ] || fail "the postern command is not on this host: install Postern first, or set POSTERN_BIN"

if [ "$(id -u)" -eq 0 ]; then
  data_dir="\${POSTERN_DATA_DIR:-/var/lib/postern/app-$app_name}"
else
  data_dir="\${POSTERN_DATA_DIR:-$HOME/.postern/app-$app_name}"
fi
args=(agent --proxy "$proxy_url" --token "$join_token" --app "$app_name=$app_uri" --data-dir "$data_dir")
if [ "\${POSTERN_INSECURE_TLS:-}" = 1 ]; then args+=(--insecure); fi

if [ "\${POSTERN_FOREGROUND:-}" = 1 ] || [ "$(id -u)" -ne 0 ] || ! command -v systemctl >/dev/null; then
  echo "postern: serving $app_name ($app_uri) through $proxy_url; Ctrl-C stops it" >&2
  exec "$postern_bin" "\${args[@]}"
fi

# The service runs a wrapper holding the command, quoted by bash: systemd's own quoting differs.
umask 077
mkdir -p /etc/postern
wrapper="/etc/postern/app-$app_name.sh"
{
  echo '#!/usr/bin/env bash'
  printf 'exec'
  printf ' %q' "$postern_bin" "\${args[@]}"
  printf '\\n'
} >"$wrapper"
chmod 700 "$wrapper"
cat >"/etc/systemd/system/postern-app-$app_name.service" <<UNIT
[Unit]
Description=Postern agent serving the app $app_name
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
systemctl enable --now "postern-app-$app_name.service"
echo "postern: $app_name ($app_uri) is served through $proxy_url by the service postern-app-$app_name"
`;
}

/** What a link with a bad name or uri serves: a script that says which and fails. */
export function badAppScript(why: string): string {
  return `#!/bin/sh
echo ${shellQuote(`postern: this install link is not valid: ${why}`)} >&2
exit 1
`;
}
