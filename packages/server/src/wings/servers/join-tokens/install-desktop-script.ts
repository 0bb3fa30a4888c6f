import { desktopNameSchema } from '@postern/contracts';
import { z } from 'zod';
import { agentInstallScript, urlOnly } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

const expected = 'expected vnc://host:port';

/**
 * Why `uri` is not what `postern agent --desktop name=uri` takes (agent/desktop-flags.ts), or
 * undefined: vnc://host with an optional port, and only `password_file` (an absolute path on the
 * agent's host). A password in the link itself is refused: a link must not carry a secret.
 */
function desktopUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return expected;
  }
  if (url.protocol !== 'vnc:' || !url.hostname) return expected;
  if (url.username || url.password) {
    return 'no password in the uri: name a password_file on the desktop host';
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) {
    return `${expected}, with only password_file after ?`;
  }
  for (const key of url.searchParams.keys()) {
    if (key !== 'password_file') return `unknown parameter ${key}: only password_file`;
  }
  const file = url.searchParams.get('password_file');
  if (file !== null && !file.startsWith('/')) {
    return 'password_file is an absolute path on the desktop host';
  }
  return undefined;
}

/** `?name=build&uri=vnc://localhost:5901?password_file=/etc/postern/build.vncpass`. */
export const installDesktopQuerySchema = z.object({
  name: desktopNameSchema,
  uri: urlOnly(z.string().max(1024)).superRefine((uri, ctx) => {
    const problem = desktopUriProblem(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

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
