import type { installAppQuerySchema } from '@postern/contracts';
import type { z } from 'zod';
import { agentInstallScript } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

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
