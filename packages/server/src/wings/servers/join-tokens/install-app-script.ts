import { appNameSchema, appUriSchema } from '@postern/contracts';
import { z } from 'zod';
import { agentInstallScript, urlOnly } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

/**
 * `?name=grafana&uri=http://localhost:3000`: the app resource's rules, and a uri of characters
 * that need no quoting anywhere the script or systemd puts them.
 */
export const installAppQuerySchema = z.object({
  name: appNameSchema,
  uri: urlOnly(appUriSchema),
});

/**
 * The bash script `GET /scripts/:token/install-app.sh?name=&uri=` serves: run on a host that
 * reaches the app, it runs `postern agent --app name=uri` (agent-install-script.ts). See
 * docs/apps.md, "Apps behind an agent".
 */
export function installAppScript(
  options: InstallScriptOptions & z.output<typeof installAppQuerySchema>,
): string {
  return agentInstallScript({ ...options, kind: 'app', noun: 'application' });
}
