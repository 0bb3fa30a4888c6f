// A MariaDB server of the bench's own (Debian's mariadbd, as root with --user=root, in a temp dir,
// on loopback and a free port), with TLS on and trusting Postern's database client CA, as
// docs/databases.md sets a database up; accounts are made `REQUIRE SUBJECT` by the caller.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { repoRoot } from './postern.mjs';
import { freePort } from './ports.mjs';

const run = promisify(execFile);

export async function startMariadb(clientCaPem) {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-maria-'));
  const file = (name) => path.join(dir, name);
  const module = path.join(repoRoot, 'packages/server/dist/tls/self-signed.js');
  const { createSelfSigned } = await import(pathToFileURL(module).href);
  const server = await createSelfSigned(['localhost']);
  await writeFile(file('server.crt'), server.cert, { mode: 0o644 });
  await writeFile(file('server.key'), server.key, { mode: 0o600 });
  await writeFile(file('client-ca.crt'), clientCaPem, { mode: 0o644 });
  const common = [
    '--no-defaults',
    '--user=root',
    `--datadir=${file('data')}`,
    '--skip-name-resolve',
    '--skip-log-bin',
    '--innodb-buffer-pool-size=128M',
    '--innodb-flush-log-at-trx-commit=0',
  ];
  await run('mariadb-install-db', [...common, '--auth-root-authentication-method=socket'], {
    timeout: 120_000,
  });
  const port = await freePort();
  const socket = file('mariadb.sock');
  const child = spawn(
    'mariadbd',
    [
      ...common,
      `--socket=${socket}`,
      `--pid-file=${file('mariadb.pid')}`,
      `--log-error=${file('error.log')}`,
      '--bind-address=127.0.0.1',
      `--port=${port}`,
      '--max-connections=200',
      `--ssl-cert=${file('server.crt')}`,
      `--ssl-key=${file('server.key')}`,
      `--ssl-ca=${file('client-ca.crt')}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const sql = (statement) =>
    run('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-N', '-B', '-e', statement], {
      timeout: 600_000,
    }).then(({ stdout }) => stdout);
  for (let tries = 0; ; tries++) {
    if (
      await sql('select 1').then(
        () => true,
        () => false,
      )
    )
      break;
    if (tries > 300) throw new Error('mariadbd did not start within 30 s');
    await sleep(100);
  }
  return {
    port,
    serverCertPem: server.cert,
    sql,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
