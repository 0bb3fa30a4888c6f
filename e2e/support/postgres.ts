import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './sshd.js';

const run = promisify(execFile);

export interface RunningPostgres {
  /** The loopback port it listens on (TCP on 127.0.0.1 only). */
  port: number;
  /** Runs SQL as the superuser over the cluster's Unix socket (trusted); psql's unaligned output. */
  sql(statement: string, database?: string): Promise<string>;
  /** Stops it and removes its files. */
  stop(): Promise<void>;
}

export interface PostgresTls {
  /** The server's certificate and key (PEM). */
  cert: string;
  key: string;
  /** The CA whose client certificates may sign in (`hostssl … cert`): Postern's database client CA. */
  clientCa: string;
}

/**
 * A PostgreSQL of the spec's own, configured as docs/databases.md tells an administrator: TLS with
 * the given server certificate, and sign-in over TCP only with a client certificate of the given
 * CA whose CN is the database user. Debian's binaries; initdb refuses root, so it runs as the
 * `postgres` OS user, on 127.0.0.1 and a free port, in a temporary dir (the host's clusters are
 * never touched).
 */
export async function startPostgres(tls: PostgresTls): Promise<RunningPostgres> {
  const versions = await readdir('/usr/lib/postgresql');
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const bin = (name: string) => path.join('/usr/lib/postgresql', newest, 'bin', name);
  const ids = await postgresIds();
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-e2e-pg-'));
  await chown(dir, ...ids);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asPostgres = (file: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', file, ...args], { timeout: 60_000 });
  const owned = async (name: string, text: string, mode: number) => {
    await writeFile(path.join(dir, name), text, { mode });
    await chown(path.join(dir, name), ...ids);
  };
  const stop = async () => {
    await asPostgres(bin('pg_ctl'), ['stop', '-w', '-m', 'immediate', '-D', data]).catch(
      () => undefined,
    );
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await asPostgres(bin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await owned('server.crt', tls.cert, 0o644);
    await owned('server.key', tls.key, 0o600);
    await owned('client-ca.crt', tls.clientCa, 0o644);
    const hba = [
      'local all all trust',
      'hostssl all all 127.0.0.1/32 cert',
      'host all all 127.0.0.1/32 reject',
    ];
    await owned('pg_hba.conf', `${hba.join('\n')}\n`, 0o644);
    const options = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      `-c ssl=on -c ssl_cert_file=${dir}/server.crt -c ssl_key_file=${dir}/server.key`,
      `-c ssl_ca_file=${dir}/client-ca.crt -c hba_file=${dir}/pg_hba.conf`,
    ].join(' ');
    const log = path.join(dir, 'log');
    await asPostgres(bin('pg_ctl'), ['start', '-w', '-D', data, '-l', log, '-o', options]);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    port,
    async sql(statement, database = 'postgres') {
      const result = await asPostgres(bin('psql'), [
        ...['-h', dir, '-p', String(port), '-U', 'postgres', '-d', database],
        ...['-v', 'ON_ERROR_STOP=1', '-At', '-c', statement],
      ]);
      return result.stdout;
    },
    stop,
  };
}

async function postgresIds(): Promise<[number, number]> {
  const uid = await run('id', ['-u', 'postgres']);
  const gid = await run('id', ['-g', 'postgres']);
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}
