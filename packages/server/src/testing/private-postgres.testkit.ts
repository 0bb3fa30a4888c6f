import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSelfSigned } from '../tls/self-signed.js';
import { freePort } from './sshd.testkit.js';

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
  port: number;
  /** With `tls`: the server's self-signed certificate, which is its own CA. */
  serverCertPem?: string;
  /** Runs SQL as the superuser over the cluster's Unix socket (trusted), returns psql's output. */
  sql(statement: string, database?: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: connections drop at once, as in a crash. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

/**
 * A PostgreSQL cluster of our own, for tests that stop and restart the database (the shared one
 * on 5432 must keep running for everybody else). Debian's binaries; initdb refuses root, so the
 * cluster runs as the `postgres` OS user, on loopback and a random port.
 */
export interface PrivatePostgresOptions {
  /**
   * TLS on (`ssl=on` with a self-signed server certificate for 127.0.0.1 and localhost) and
   * sign-in over TCP only by a client certificate this CA signed (`hostssl … cert`); `hba` lines
   * go before that one (a password user, say).
   */
  tls?: { clientCaPem: string; hba?: string[] };
}

export async function startPrivatePostgres(
  startOptions: PrivatePostgresOptions = {},
): Promise<PrivatePostgres> {
  const versions = await readdir('/usr/lib/postgresql');
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const bin = (name: string) => path.join('/usr/lib/postgresql', newest, 'bin', name);
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-pg-'));
  await chown(dir, ...(await postgresIds()));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (file: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', file, ...args], { timeout: 60_000 });
  await asPostgres(bin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  let options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let serverCertPem: string | undefined;
  if (startOptions.tls) {
    const server = await createSelfSigned(['localhost']);
    serverCertPem = server.cert;
    const owned = async (name: string, text: string, mode: number) => {
      await writeFile(path.join(dir, name), text, { mode });
      await chown(path.join(dir, name), ...(await postgresIds()));
    };
    await owned('server.crt', server.cert, 0o644);
    await owned('server.key', server.key, 0o600);
    await owned('client-ca.crt', startOptions.tls.clientCaPem, 0o644);
    const hba = [
      'local all all trust',
      ...(startOptions.tls.hba ?? []),
      'hostssl all all 127.0.0.1/32 cert',
      'host all all 127.0.0.1/32 reject',
    ];
    await owned('pg_hba.conf', `${hba.join('\n')}\n`, 0o644);
    options +=
      ` -c ssl=on -c ssl_cert_file=${dir}/server.crt -c ssl_key_file=${dir}/server.key` +
      ` -c ssl_ca_file=${dir}/client-ca.crt -c hba_file=${dir}/pg_hba.conf`;
  }
  const start = () =>
    asPostgres(bin('pg_ctl'), [
      'start',
      '-w',
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-o',
      options,
    ]).then(() => undefined);
  const stop = () =>
    asPostgres(bin('pg_ctl'), ['stop', '-w', '-m', 'immediate', '-D', data]).then(() => undefined);
  await start();
  const sql = async (statement: string, database = 'postgres') => {
    const result = await asPostgres(bin('psql'), [
      '-h',
      dir,
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      database,
      '-v',
      'ON_ERROR_STOP=1',
      '-At',
      '-c',
      statement,
    ]);
    return result.stdout;
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    serverCertPem,
    sql,
    start,
    stop,
    async destroy() {
      await stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const uid = await run('id', ['-u', 'postgres']);
  const gid = await run('id', ['-g', 'postgres']);
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}
