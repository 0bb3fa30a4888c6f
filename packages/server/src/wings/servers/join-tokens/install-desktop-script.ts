import type { installDesktopQuerySchema } from '@postern/contracts';
import type { z } from 'zod';
import { agentInstallScript } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

/**
 * The bash script `GET /scripts/:token/install-desktop.sh?name=&uri=` serves: run on a host that
 * reaches a VNC desktop, it runs `postern agent --desktop name=uri` (agent-install-script.ts),
 * which signs in to the desktop with the password in its file. See docs/desktops.md.
 */
export function installDesktopScript(
  options: InstallScriptOptions & z.output<typeof installDesktopQuerySchema>,
): string {
  return agentInstallScript({ ...options, kind: 'desktop', noun: 'desktop' });
}
