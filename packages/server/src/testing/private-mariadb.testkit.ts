import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createSelfSigned } from '../tls/self-signed.js';
import { freePort } from './sshd.testkit.js';

const run = promisify(execFile);

const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const CLIENT = '/usr/bin/mariadb';

export interface PrivateMariadb {
  /** TCP port on 127.0.0.1. */
  port: number;
  /** The server's self-signed certificate, which is its own CA, for clients to verify. */
  serverCertPem: string;
  /** Runs SQL as root over the Unix socket; returns `mariadb --batch --skip-column-names` output. */
  sql(statement: string, database?: string): Promise<string>;
  /** SIGTERM, which mariadbd takes as a normal shutdown; resolves once it has exited. */
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

export interface PrivateMariadbOptions {
  /** PEM of the CA whose client certificates the server trusts (`ssl-ca`). */
  clientCaPem: string;
}

/**
 * A MariaDB server of our own for the MySQL engine tests: a system MariaDB may be running on 3306
 * and is left alone. Debian's binaries with `--no-defaults` everywhere, so nothing under
 * /etc/mysql applies; datadir, socket, pid file and logs all live in a temp dir. TLS is on with a
 * self-signed certificate for localhost and 127.0.0.1, and client certificates are checked
 * against `clientCaPem`, so accounts made `REQUIRE SUBJECT` (see `requireSubjectFor` in wings/databases/mysql/require-subject.ts) sign in by
 * certificate alone. Starting takes a second or two; share one per test file.
 */
export async function startPrivateMariadb(options: PrivateMariadbOptions): Promise<PrivateMariadb> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-mariadb-'));
  const file = (name: string) => path.join(dir, name);
  try {
    const server = await createSelfSigned(['localhost']);
    await writeFile(file('server.crt'), server.cert, { mode: 0o644 });
    await writeFile(file('server.key'), server.key, { mode: 0o600 });
    await writeFile(file('client-ca.crt'), options.clientCaPem, { mode: 0o644 });

    // Shared by the bootstrap and the server. mariadbd refuses to run as root unless told to,
    // and running it as root spares us chowning everything to `mysql`. The rest is for speed:
    // a test server needs neither durability nor a 128 MB buffer pool nor a 96 MB redo log.
    const common = [
      '--no-defaults',
      '--user=root',
      `--datadir=${file('data')}`,
      '--skip-name-resolve',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=32M',
      '--innodb-log-file-size=8M',
      '--innodb-flush-log-at-trx-commit=0',
    ];
    // `socket` authentication: root@localhost signs in only as the OS user root over the Unix
    // socket (the one sql() uses), never over TCP, where only certificate accounts can get in.
    await run(
      INSTALL_DB,
      [...common, '--auth-root-authentication-method=socket', '--skip-test-db'],
      { timeout: 60_000 },
    ).catch((error: Error & { stdout?: string; stderr?: string }) => {
      throw new Error(
        `mariadb-install-db failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
      );
    });

    const port = await freePort();
    const socket = file('mariadb.sock');
    const errorLog = file('error.log');
    const child = spawn(
      MARIADBD,
      [
        ...common,
        `--socket=${socket}`,
        `--pid-file=${file('mariadb.pid')}`,
        `--log-error=${errorLog}`,
        '--bind-address=127.0.0.1',
        `--port=${port}`,
        `--ssl-cert=${file('server.crt')}`,
        `--ssl-key=${file('server.key')}`,
        `--ssl-ca=${file('client-ca.crt')}`,
      ],
      // Everything goes to the error log; no pipes, so a forgotten server cannot hold the test
      // process open through them (unref below does the same for the child itself).
      { stdio: 'ignore' },
    );
    child.unref();
    let spawnError = '';
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // A missing binary arrives as 'error' (no 'exit'); scripts/ensure-test-deps.sh installs it.
      child.once('error', (error) => {
        spawnError = `cannot run ${MARIADBD}: ${error.message}\n`;
        resolve();
      });
    });
    let running = true;
    void exited.then(() => (running = false));

    const stop = async () => {
      if (running) child.kill('SIGTERM');
      // A clean InnoDB shutdown takes well under a second; don't let a stuck one hang the suite.
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    };
    // utf8mb4 whatever the locale, or non-ASCII names in statements would arrive as latin1.
    const client = (args: string[]) =>
      run(
        CLIENT,
        [
          '--no-defaults',
          `--socket=${socket}`,
          '--user=root',
          '--default-character-set=utf8mb4',
          ...args,
        ],
        { timeout: 60_000 },
      );

    // Ready means a real sign-in and query over the socket, which is what sql() needs; the TCP
    // port opens in the same step, so it is up by then too.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await client(['--connect-timeout=2', '-e', 'select 1']).then(
        () => true,
        () => false,
      );
      if (ready) break;
      if (!running || Date.now() > deadline) {
        const why = running ? 'did not accept connections within 30 s' : 'exited while starting';
        await stop();
        const log = await readFile(errorLog, 'utf8').catch(() => '');
        const tail = log.trimEnd().split('\n').slice(-30).join('\n');
        throw new Error(`mariadbd ${why}; its error log ended with:\n${spawnError}${tail}`);
      }
      await sleep(100);
    }

    return {
      port,
      serverCertPem: server.cert,
      async sql(statement, database) {
        const target = database === undefined ? [] : [`--database=${database}`];
        const result = await client(['--batch', '--skip-column-names', ...target, '-e', statement]);
        return result.stdout;
      },
      stop,
      async destroy() {
        await stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
