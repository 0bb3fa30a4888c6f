import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './sshd.testkit.js';

const run = promisify(execFile);

export interface PrivatePostgres {
  url: string;
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
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
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
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
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
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
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
