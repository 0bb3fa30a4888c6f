import {
  apiPaths,
  databaseListResponseSchema,
  databaseLoginResponseSchema,
  type DatabaseJson,
} from '@postern/contracts';
import { spawn } from 'node:child_process';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { signedClient } from '../../../cli/login/signed-client.js';
import { askCodeOn, type AskCode } from '../../../cli/login/session-mfa.js';
import { leafNamed } from '../../../cli/login/nodes.js';
import { catalogPath, tunnelTarget } from '../../../cli/login/tunnel-target.js';
import { listenThroughProxy } from '../../../cli/login/tunnel-listener.js';
import { printTable, labelListCell } from '../../../cli/table.js';
import { ConfigError } from '../../../config/config.js';

export interface ConnectFlags {
  dbUser: string;
  dbName?: string;
  /** A trusted leaf's database, through the root (`--cluster`). */
  cluster?: string;
}

/**
 * Every database the user may reach, through the signed catalog (`dbconnect`), or a trusted
 * leaf's (`cluster`), which the root forwards to the leaf with the leaf session it grants.
 */
async function fetchDatabases(env: NodeJS.ProcessEnv, cluster?: string): Promise<DatabaseJson[]> {
  const { get, profile } = await signedClient(env);
  const leaf = leafNamed(cluster, profile);
  const path = catalogPath(apiPaths.databaseCatalog, apiPaths.databases, leaf);
  return (await get(path, databaseListResponseSchema)).items;
}

/**
 * `postern db login NAME`: a certificate for the proxy's native listener, for one database
 * user and name, written under ~/.postern/db; returns how to connect with it.
 */
export async function loginCommand(
  env: NodeJS.ProcessEnv,
  name: string,
  flags: ConnectFlags,
): Promise<{ lines: string[]; files: { cert: string; key: string; ca: string } }> {
  const db = await fetchDatabase(env, name, flags.cluster);
  const dbName = flags.dbName ?? (db.protocol === 'postgres' ? flags.dbUser : '');
  const { profile, post } = await signedClient(env);
  const path = apiPaths.databaseLogin(name);
  const body = {
    db_user: flags.dbUser,
    db_name: dbName,
    ...(flags.cluster ? { cluster_name: flags.cluster } : {}),
  };
  const answer = await post(path, body, databaseLoginResponseSchema);
  const home = new PosternHome(env);
  // A leaf's database of the same name as one here keeps files of its own.
  const fileName = flags.cluster ? `${name}@${flags.cluster}` : name;
  const files = home.databaseFiles(new URL(profile.proxy).hostname, fileName);
  await home.writeCertificateFiles(files, answer);
  const lines = [
    `Logged in to database ${name}${flags.cluster ? ` on ${flags.cluster}` : ''} as ${flags.dbUser}, database ${dbName}, until ${answer.expires}.`,
  ];
  const postgres = db.protocol === 'postgres';
  if (!answer.listener) {
    lines.push(
      `This proxy runs no native listener for it (${postgres ? 'postgres_addr' : 'mysql_addr'}): use postern db connect or postern proxy db.`,
    );
    return { lines, files };
  }
  const [host, port] = splitHostPort(answer.listener);
  lines.push(
    'Connect with:',
    postgres
      ? `  psql "host=${host} port=${port} sslmode=verify-full sslrootcert=${files.ca} sslcert=${files.cert} sslkey=${files.key} user=${flags.dbUser} dbname=${dbName}"`
      : `  mariadb ${nativeMysqlArgs(host, port, files, flags.dbUser, dbName).join(' ')}`,
  );
  return { lines, files };
}

/**
 * The mariadb client's arguments for the native MySQL listener: TLS with the server verified
 * against the access CA, the login's certificate, the pinned user and database.
 */
export function nativeMysqlArgs(
  host: string,
  port: string,
  files: { cert: string; key: string; ca: string },
  dbUser: string,
  dbName: string,
): string[] {
  return [
    `--host=${host}`,
    `--port=${port}`,
    `--ssl-ca=${files.ca}`,
    `--ssl-cert=${files.cert}`,
    `--ssl-key=${files.key}`,
    '--ssl-verify-server-cert',
    `--user=${dbUser}`,
    ...(dbName ? [`--database=${dbName}`] : []),
  ];
}

function splitHostPort(address: string): [string, string] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at).replace(/^\[|\]$/g, ''), address.slice(at + 1)];
}

/** One database the user may reach, by name, or a clear error. */
export async function fetchDatabase(
  env: NodeJS.ProcessEnv,
  name: string,
  cluster?: string,
): Promise<DatabaseJson> {
  const db = (await fetchDatabases(env, cluster)).find((candidate) => candidate.name === name);
  if (!db) {
    const ls = cluster ? `postern db ls --cluster ${cluster}` : 'postern db ls';
    throw new ConfigError(`no database named ${name} that you may reach: see ${ls}`);
  }
  return db;
}

/** `postern db ls [--cluster LEAF]`. */
export async function listDatabases(
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
  cluster?: string,
) {
  const databases = await fetchDatabases(env, cluster);
  if (databases.length === 0) return print('No databases you may reach.');
  printTable(
    ['NAME', 'PROTOCOL', 'USERS', 'NAMES', 'STATUS', 'LABELS'],
    databases.map((db) => [
      db.name,
      db.protocol,
      db.database_users.join(',') || '(none)',
      db.database_names.join(',') || '(none)',
      db.status,
      labelListCell(db.labels),
    ]),
    print,
  );
}

/**
 * `postern db connect NAME`: a listener on a free loopback port for this one client, and the
 * database's own client (psql, mariadb or mysql) pointed at it; exits with the client's exit code.
 */
export async function connectCommand(
  env: NodeJS.ProcessEnv,
  name: string,
  flags: ConnectFlags,
  askCode: AskCode = askCodeOn(),
): Promise<number> {
  const db = await fetchDatabase(env, name, flags.cluster);
  const launches = clientLaunches(db.protocol);
  if (launches.length === 0) {
    throw new ConfigError(`postern db connect has no client for ${db.protocol} (${name})`);
  }
  const target = await tunnelTarget(env, { kind: 'db', name, cluster: flags.cluster }, askCode);
  // require_session_mfa: the code is asked for now, before the client takes the terminal.
  await target.certificate?.();
  const listener = await listenThroughProxy(env, target, 0, (line) =>
    console.error(`postern: ${line}`),
  );
  try {
    for (const launch of launches) {
      const code = await run(launch.command, launch.args(listener.port, flags), env).catch(
        (error: Error & { missing?: boolean }) => {
          if (error.missing && launch !== launches.at(-1)) return undefined;
          throw error;
        },
      );
      if (code !== undefined) return code;
    }
    return 1;
  } finally {
    await listener.close();
  }
}

/** A database client program and its arguments for the local listener on `port`. */
export interface ClientLaunch {
  command: string;
  args: (port: number, flags: ConnectFlags) => string[];
}

/**
 * The clients `postern db connect` starts for a protocol, the first one installed wins. The
 * local leg is loopback into the listener, so TLS is off there; beyond it the tunnel is TLS.
 */
export function clientLaunches(protocol: string): ClientLaunch[] {
  if (protocol === 'postgres') {
    return [
      {
        command: 'psql',
        args: (port, flags) => psqlArgs(port, flags.dbUser, flags.dbName ?? flags.dbUser),
      },
    ];
  }
  if (protocol === 'mysql') {
    const common = (port: number, flags: ConnectFlags) => [
      '-h',
      '127.0.0.1',
      '-P',
      String(port),
      '-u',
      flags.dbUser,
      ...(flags.dbName ? ['-D', flags.dbName] : []),
    ];
    return [
      { command: 'mariadb', args: (port, flags) => [...common(port, flags), '--skip-ssl'] },
      { command: 'mysql', args: (port, flags) => [...common(port, flags), '--ssl-mode=DISABLED'] },
    ];
  }
  return [];
}

/** psql's connection string for the local listener (loopback: no TLS on this leg). */
export function psqlArgs(port: number, dbUser: string, dbName: string): string[] {
  const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return [
    `host=127.0.0.1 port=${port} user=${quote(dbUser)} dbname=${quote(dbName)} sslmode=disable`,
  ];
}

/** How a client reaches the database through `postern proxy db` on `port`, as a URI. */
export function connectionUri(protocol: string, port: number, flags: ConnectFlags): string {
  const user = encodeURIComponent(flags.dbUser);
  if (protocol === 'mysql') {
    const path = flags.dbName ? `/${encodeURIComponent(flags.dbName)}` : '';
    return `mysql://${user}@127.0.0.1:${port}${path}?ssl-mode=DISABLED`;
  }
  const dbName = encodeURIComponent(flags.dbName ?? flags.dbUser);
  return `postgres://${user}@127.0.0.1:${port}/${dbName}?sslmode=disable`;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        Object.assign(
          new ConfigError(`cannot start ${command}: ${error.message} (is it installed?)`),
          { missing: error.code === 'ENOENT' },
        ),
      ),
    );
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
