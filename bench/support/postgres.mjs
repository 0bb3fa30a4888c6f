// A PostgreSQL cluster of the bench's own (Debian's binaries, as the `postgres` OS user, in a temp
// dir, on loopback and a free port), with TLS on and sign-in over TCP only by a client
// certificate from Postern's database client CA, as docs/databases.md sets a database up.
import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { repoRoot } from './postern.mjs';
import { freePort } from './ports.mjs';

const run = promisify(execFile);

async function newestBin() {
  const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  return (name) => path.join('/usr/lib/postgresql', versions[0], 'bin', name);
}

/** A self-signed server certificate (the server's own CA), made by the built server's module. */
async function serverCertificate() {
  const module = path.join(repoRoot, 'packages/server/dist/tls/self-signed.js');
  const { createSelfSigned } = await import(pathToFileURL(module).href);
  return createSelfSigned(['localhost']);
}

/** Its own temp dir (the `postgres` user must reach it, so not under a root-only one). */
export async function startPostgres(clientCaPem) {
  const bin = await newestBin();
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-pg-'));
  const ids = await Promise.all(['-u', '-g'].map((flag) => run('id', [flag, 'postgres'])));
  const [uid, gid] = ids.map(({ stdout }) => Number(stdout.trim()));
  await chown(dir, uid, gid);
  const asPostgres = (file, args) =>
    run('runuser', ['-u', 'postgres', '--', file, ...args], {
      timeout: 600_000,
      maxBuffer: 1 << 26,
    });
  const data = path.join(dir, 'data');
  await asPostgres(bin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const server = await serverCertificate();
  const owned = async (name, text, mode) => {
    await writeFile(path.join(dir, name), text, { mode });
    await chown(path.join(dir, name), uid, gid);
  };
  await owned('server.crt', server.cert, 0o644);
  await owned('server.key', server.key, 0o600);
  await owned('client-ca.crt', clientCaPem, 0o644);
  await owned('pg_hba.conf', 'local all all trust\nhostssl all all 127.0.0.1/32 cert\n', 0o644);
  const port = await freePort();
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`,
    `-c ssl=on -c ssl_cert_file=${dir}/server.crt -c ssl_key_file=${dir}/server.key`,
    `-c ssl_ca_file=${dir}/client-ca.crt -c hba_file=${dir}/pg_hba.conf`,
  ].join(' ');
  await asPostgres(bin('pg_ctl'), [
    'start',
    '-w',
    '-D',
    data,
    '-l',
    path.join(dir, 'log'),
    '-o',
    options,
  ]);
  return {
    port,
    serverCertPem: server.cert,
    socketDir: dir,
    bin,
    /** pgbench or psql as the superuser over the trusted Unix socket. */
    local: (tool, args) => asPostgres(bin(tool), ['-h', dir, '-p', String(port), ...args]),
    stop: async () => {
      await asPostgres(bin('pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', data]).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
