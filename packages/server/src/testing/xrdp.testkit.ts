import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnDaemon } from './daemon.testkit.js';
import { freePort, waitForPort } from './sshd.testkit.js';
import { startXvnc, type RunningXvnc, type StartXvncOptions } from './xvnc.testkit.js';

const XRDP = '/usr/sbin/xrdp';

export interface RunningXrdp {
  host: string;
  /** Where it takes RDP connections. */
  port: number;
  /** The X server behind it, whose screen the RDP session shows (X clients run there). */
  xvnc: RunningXvnc;
  /** What signs in: any user name, and this password (the Xvnc's VNC password). */
  password: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real RDP server: xrdp (Debian's xrdp, installed by scripts/ensure-test-deps.sh) on a free
 * loopback port, with TLS only, in front of a TigerVNC Xvnc through xrdp's own VNC module (so
 * no session manager, PAM or Xorg driver is involved: the credentials an RDP client sends sign
 * in to the Xvnc). Its config is xrdp's usual one (bitmap compression on) but for slow-path
 * output and no bitmap cache, which Postern's client does not ask for anyway.
 */
export async function startXrdp(
  options: StartXvncOptions & {
    password: string;
    /** Bitmap compression (interleaved RLE, planar at 32 bpp), as xrdp's default; default on. */
    compression?: boolean;
    /** The most bits per pixel the server uses (default 32). */
    maxBpp?: 15 | 16 | 24 | 32;
  },
): Promise<RunningXrdp> {
  const xvnc = await startXvnc(options);
  try {
    const port = await freePort();
    const dir = xvnc.dir;
    await promisify(execFile)('openssl', [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=xrdp-test'],
      ...['-keyout', path.join(dir, 'xrdp-key.pem'), '-out', path.join(dir, 'xrdp-cert.pem')],
    ]);
    const config = path.join(dir, 'xrdp.ini');
    await writeFile(
      config,
      `[Globals]
ini_version=1
fork=false
port=tcp://127.0.0.1:${port}
tcp_nodelay=true
security_layer=tls
crypt_level=none
certificate=${path.join(dir, 'xrdp-cert.pem')}
key_file=${path.join(dir, 'xrdp-key.pem')}
ssl_protocols=TLSv1.2, TLSv1.3
autorun=xvnc
allow_channels=true
bitmap_cache=false
bitmap_compression=${options.compression === false ? 'false' : 'true'}
bulk_compression=false
max_bpp=${options.maxBpp ?? 32}
new_cursors=false
use_fastpath=both
[Channels]
cliprdr=true
rdpdr=false
rdpsnd=false
drdynvc=false
rail=false
xrdpvr=false
tcutils=false
[Logging]
LogFile=${path.join(dir, 'xrdp.log')}
LogLevel=INFO
EnableSyslog=false
[xvnc]
name=xvnc
lib=libvnc.so
ip=127.0.0.1
port=${xvnc.port}
username=na
password=ask
`,
    );
    const xrdp = spawnDaemon(XRDP, ['--nodaemon', '--config', config], dir);
    await waitForPort(port, xrdp.running, xrdp.output, 'xrdp');
    return {
      host: '127.0.0.1',
      port,
      xvnc,
      password: options.password,
      output: xrdp.output,
      async stop() {
        await xrdp.stop();
        await xvnc.stop();
      },
    };
  } catch (error) {
    await xvnc.stop();
    throw error;
  }
}
