import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnDaemon } from './daemon.testkit.js';
import { freePort, waitForPort } from './sshd.testkit.js';
import { startXvnc, type RunningXvnc, type StartXvncOptions } from './xvnc.testkit.js';

const SHADOW = '/usr/bin/freerdp-shadow-cli';

export interface RunningFreerdpShadow {
  host: string;
  /** Where it takes RDP connections (NLA only). */
  port: number;
  /** The X server it shadows: what an RDP session shows (X clients run there). */
  xvnc: RunningXvnc;
  /** The one account its SAM file knows. */
  user: string;
  domain: string;
  password: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real RDP server that requires Network Level Authentication: FreeRDP's shadow server
 * (Debian's freerdp2-shadow-x11, installed by scripts/ensure-test-deps.sh) on a free loopback
 * port with `/sec:nla`, checking NTLM against a SAM file of one account, and showing the screen
 * of a TigerVNC Xvnc it shadows as an X client. It makes its own self-signed certificate (in
 * the temp dir, through XDG_CONFIG_HOME).
 */
export async function startFreerdpShadow(
  options: StartXvncOptions & { user: string; domain?: string; password: string },
): Promise<RunningFreerdpShadow> {
  const xvnc = await startXvnc({ ...options, password: undefined });
  try {
    const dir = xvnc.dir;
    const domain = options.domain ?? '';
    // WinPR's SAM format: user:domain:LM hash:NT hash:::. The NT hash is MD4 of the UTF-16LE
    // password, taken with OpenSSL's legacy provider so the server's side does not come from the
    // code under test.
    const samFile = path.join(dir, 'sam');
    await writeFile(samFile, `${options.user}:${domain}::${await ntHash(options.password)}:::\n`);
    const config = path.join(dir, 'config');
    await mkdir(config);
    const port = await freePort();
    // Through env(1): the daemon kit starts programs with the test's environment.
    const shadow = spawnDaemon(
      '/usr/bin/env',
      [
        `DISPLAY=:${xvnc.display}`,
        `HOME=${dir}`,
        `XDG_CONFIG_HOME=${config}`,
        SHADOW,
        `/port:${port}`,
        '/bind-address:127.0.0.1',
        '/sec:nla',
        `/sam-file:${samFile}`,
      ],
      dir,
    );
    await waitForPort(port, shadow.running, shadow.output, 'freerdp-shadow-cli');
    return {
      host: '127.0.0.1',
      port,
      xvnc,
      user: options.user,
      domain,
      password: options.password,
      output: shadow.output,
      async stop() {
        await shadow.stop();
        await xvnc.stop();
      },
    };
  } catch (error) {
    await xvnc.stop();
    throw error;
  }
}

function ntHash(password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'openssl',
      ['dgst', '-md4', '-provider', 'legacy', '-provider', 'default', '-r'],
      (error, stdout) => {
        if (error) reject(error);
        else resolve(stdout.split(' ')[0]!);
      },
    );
    child.stdin?.end(Buffer.from(password, 'utf16le'));
  });
}
