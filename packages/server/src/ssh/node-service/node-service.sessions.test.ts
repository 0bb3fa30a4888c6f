import { readFileSync } from 'node:fs';
import { Duplex } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { collect, readUntil, runCommand } from '../channel.testkit.js';
import { openExec, openShell } from '../client.js';
import { NodeService } from './index.js';
import { nodeServiceFixture } from './node-service.testkit.js';

const { state, hostKey, certificate, login, withClient } = nodeServiceFixture();

describe('NodeService sessions', () => {
  it('runs commands with separate stdout and stderr, stdin, and the exit code', async () => {
    await withClient(async (client) => {
      expect(await runCommand(client, 'echo out; echo err >&2; exit 7')).toEqual({
        stdout: 'out\n',
        stderr: 'err\n',
        code: 7,
      });
      expect(await runCommand(client, 'tr a-z A-Z', { stdin: 'shout' })).toMatchObject({
        stdout: 'SHOUT',
        code: 0,
      });
      const { stdout } = await runCommand(
        client,
        'echo "$USER $HOME $PWD $SHELL"; tty || true; echo "$PATH"',
      );
      expect(stdout).toMatch(/^root \/root \/root \/bin\/bash\nnot a tty\n/);
      // Debian's bash reads ~/.bashrc under sshd-like stdin, which may prepend to PATH.
      expect(stdout).toMatch(
        /(^|:)\/usr\/local\/sbin:\/usr\/local\/bin:\/usr\/sbin:\/usr\/bin:\/sbin:\/bin\n$/m,
      );
    });
  });

  it('gives a PTY shell that follows window changes', async () => {
    await withClient(async (client) => {
      const shell = await openShell(client, { cols: 80, rows: 24, term: 'xterm-256color' });
      shell.write('tty; stty size; echo "term=$TERM"\n');
      await readUntil(shell, /\/dev\/pts\/\d+[\s\S]*24 80[\s\S]*term=xterm-256color/);
      shell.setWindow(40, 132, 0, 0);
      shell.write('stty size\n');
      await readUntil(shell, /40 132/);
      const ended = collect(shell);
      shell.write('exit 5\n');
      expect((await ended).code).toBe(5);
    });
  });

  it('passes TERM and LANG from the client and drops other variables', async () => {
    await withClient(async (client) => {
      const env = {
        TERM: 'vt220',
        LANG: 'C.UTF-8',
        LC_TIME: 'C',
        SNEAKY: 'x',
        LD_PRELOAD: '/tmp/x.so',
      };
      const { stdout } = await runCommand(
        client,
        'echo "$TERM|$LANG|$LC_TIME|$SNEAKY|$LD_PRELOAD"',
        { env },
      );
      expect(stdout).toBe('vt220|C.UTF-8|C||\n');
    });
  });

  it('forwards signals to the command, with and without a PTY, and reports exit-signal', async () => {
    await withClient(async (client) => {
      const piped = await openExec(client, 'echo started; exec sleep 100');
      await readUntil(piped, /started/);
      const pipedResult = collect(piped);
      await new Promise((resolve) => setTimeout(resolve, 200));
      piped.signal('INT');
      expect(await pipedResult).toMatchObject({ code: null, signal: 'SIGINT' });

      const shell = await openShell(client, { cols: 80, rows: 24, term: 'xterm' });
      shell.write('echo sleeping; sleep 100\n');
      await readUntil(shell, /[\r\n]sleeping\r\n/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      shell.signal('INT');
      // The shell survives: only the foreground job got the signal, as with ^C in a terminal.
      shell.write('echo "after=$?"\n');
      await readUntil(shell, /after=130/);
      shell.end('exit\n');
    });
  });

  it.each([
    ['a PTY', { pty: { cols: 80, rows: 24, term: 'xterm' } }],
    ['pipes', {}],
  ])(
    'stops reading a flood through %s while the client does not read (backpressure)',
    async (_, opts) => {
      await withClient(async (client) => {
        const flood = await openExec(client, 'echo "pid=$$"; exec yes', opts);
        const pid = Number((await readUntil(flood, /pid=(\d+)/)).match(/pid=(\d+)/)?.[1]);
        flood.pause();
        // Once the SSH window and the buffers between are full, `yes` must block in write() for good.
        const stalledAt = await waitUntilStalled(pid);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(bytesWrittenBy(pid)).toBe(stalledAt);
        flood.resume();
        await vi.waitFor(() => expect(bytesWrittenBy(pid) - stalledAt).toBeGreaterThan(256 * 1024));
        const ended = collect(flood);
        flood.signal('KILL');
        expect(await ended).toMatchObject({ signal: 'SIGKILL' });
      });
    },
  );

  it.each([
    ['a PTY', { pty: { cols: 80, rows: 24, term: 'xterm' } }],
    ['pipes', {}],
  ])('hangs up a command running through %s when the client goes away', async (_, opts) => {
    const client = await login();
    const flood = await openExec(client, 'echo "pid=$$"; exec yes', opts);
    const pid = Number((await readUntil(flood, /pid=(\d+)/)).match(/pid=(\d+)/)?.[1]);
    client.end();
    await vi.waitFor(() => expect(isRunning(pid)).toBe(false), { timeout: 5000 });
    // The service still serves others.
    await withClient(async (other) =>
      expect((await runCommand(other, 'echo ok')).stdout).toBe('ok\n'),
    );
  });

  it('serves a stream handed over by a tunnel', async () => {
    const [clientSide, serviceSide] = duplexPair();
    state.service.handleConnection(serviceSide);
    const client = await login(certificate(), { sock: clientSide });
    try {
      expect(await runCommand(client, 'echo tunnelled')).toMatchObject({
        stdout: 'tunnelled\n',
        code: 0,
      });
    } finally {
      client.end();
    }
  });

  it('ends live sessions on close', async () => {
    const own = new NodeService({
      hostKeyPem: hostKey.privateKeyPem,
      userCaPublicKeys: () => [state.ca.userCaPublicKey],
    });
    const client = await login(certificate(), { port: (await own.listen('127.0.0.1', 0)).port });
    const shell = await openShell(client, { cols: 80, rows: 24, term: 'xterm' });
    const closed = Promise.all([
      new Promise<void>((resolve) => client.once('close', () => resolve())),
      collect(shell),
    ]);
    await own.close();
    await closed;
  });
});

/** Bytes a process has passed to write() so far (Linux /proc). */
function bytesWrittenBy(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1]);
}

/** Waits until a process has written nothing for 300 ms; fails after 10 s of steady writing. */
async function waitUntilStalled(pid: number): Promise<number> {
  let last = bytesWrittenBy(pid);
  for (let tries = 0; tries < 33; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = bytesWrittenBy(pid);
    if (now === last) return now;
    last = now;
  }
  throw new Error(`process ${pid} kept writing: no backpressure`);
}

function isRunning(pid: number): boolean {
  try {
    // A zombie (exited, not yet reaped) counts as gone.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Two connected in-memory streams, like the two ends of a tunnel. */
function duplexPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  const end = (peer: () => Duplex) =>
    new Duplex({
      read() {},
      write(chunk, _encoding, done) {
        peer().push(chunk);
        done();
      },
      final(done) {
        peer().push(null);
        done();
      },
    });
  ends.push(
    end(() => ends[1] as Duplex),
    end(() => ends[0] as Duplex),
  );
  return [ends[0] as Duplex, ends[1] as Duplex];
}
