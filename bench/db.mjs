#!/usr/bin/env node
// Database access (docs/databases.md) through the proxy, each figure next to baselines measured in
// the same run against the same PostgreSQL. Targets are printed, never asserted: the exit code is
// 0 unless the bench itself breaks.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { startAppTunnel } from './support/apps-tcp.mjs';
import { cpuSnapshot, cpuSpent, isPostern, perUnit, sumSpent } from './support/cpu-account.mjs';
import { startTlsRelay } from './support/db-relay.mjs';
import { startMariadb } from './support/mariadb.mjs';
import { startPostgres } from './support/postgres.mjs';
import {
  assertBuilt,
  createCliLogin,
  createRole,
  posternBin,
  repoRoot,
  startPostern,
} from './support/postern.mjs';
import { fmt, median, MiB, printTable, verdict } from './support/report.mjs';

const run = promisify(execFile);

const usage = `Usage: npm run build && npm run bench:db [-- options]

The bench runs the BUILT server (packages/server/dist): build first. Everything listens on
127.0.0.1. It starts \`postern start\` (temp data dir, plain HTTP, free ports), its own
PostgreSQL (Debian's, TLS on, \`hostssl all all 127.0.0.1/32 cert\` trusting Postern's database
client CA), registers it as a database, signs a user in whose role allows every db user and name,
and runs \`postern proxy db\` as that user. Three paths reach the same database as \`postgres\`:

  postern  pgbench/psql -> postern proxy db -> the proxy (WebSocket over its port) -> TLS -> db
  native   pgbench/psql -> the proxy's native PostgreSQL listener (TLS, \`postern db login\`
           certificate) -> TLS -> db
  relay    pgbench/psql -> a bare Node TLS relay written in the bench (SSLRequest, then pipes):
           plain from the client, like the tunnel's loopback leg; the tunnel's baseline
  relay-tls  the same relay taking TLS with a client certificate from the client too, like the
           native listener: decrypt and encrypt on both legs; the native listener's baseline
  direct   pgbench/psql -> the database over TLS with the same kind of client certificate

  1  pgbench -S (select only, simple protocol) with --clients clients and 2 threads, for
     --duration: TPS                                          target >= 0.85x the relay's TPS
     (the targets are judged on the native listener, the path for tools and drivers, against
     relay-tls; the tunnel's figures are printed beside it, against relay)
  2  pgbench -S with one client: average latency, ms          target <= the relay's + 0.3 ms
  3  COPY (SELECT ...) TO STDOUT of --copy-size through psql, MiB/s
                                                              target >= 0.7x direct
  4  mariadb-slap: --clients connections running point selects by primary key on a MariaDB of
     the bench's own (REQUIRE SUBJECT, the same client CA), through \`postern proxy db\`, through
     the proxy's native MySQL listener (TLS, a \`postern db login\` certificate) and direct over
     TLS: queries/s (context: a bare relay cannot take MySQL's mid-stream TLS upgrade without
     becoming a proxy itself)
Every statement of (1) and (2) is audited through Postern (one event each): the audit log is
written in the background, which the TPS shows.

Options:
  --duration 10     seconds per pgbench run
  --clients 8       clients for (1)
  --scale 10        pgbench -i scale (10: a million accounts)
  --copy-size 1G    bytes of (3) (K, M, G: powers of 1024)
  --runs 1          rounds, the paths taking turns; the median is the figure
  --cpu-prof DIR    run postern with node --cpu-prof, the profile written to DIR at exit
  --skip-mariadb    leave out (4)
  -h, --help        this text`;

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    clients: { type: 'string', default: '8' },
    scale: { type: 'string', default: '10' },
    'copy-size': { type: 'string', default: '1G' },
    runs: { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
    'skip-mariadb': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const duration = Number(opts.duration);
const clients = Number(opts.clients);
const runs = Number(opts.runs);
const copyBytes = parseSize(opts['copy-size']);
if (!(duration > 0) || !(clients >= 1) || !(runs >= 1) || !(copyBytes >= 1024)) {
  console.error(usage);
  process.exit(2);
}
assertBuilt();

const started = Date.now();
const log = (message) =>
  console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `Database bench: ${cpus().length} CPUs, node ${process.version}, load average ${load()} at start`,
);

const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-db-'));
const cleanups = [() => rm(dir, { recursive: true, force: true })];
const rows = [];
const context = [];
try {
  log('starting postern');
  const postern = await startPostern({
    dataDir: path.join(dir, 'postern'),
    configLines: ['postgres_addr: 127.0.0.1:0', 'mysql_addr: 127.0.0.1:0'],
    extraNodeArgs: opts['cpu-prof']
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`]
      : [],
  });
  cleanups.push(() => postern.stop());
  const caPem = await postern.cli(['db', 'ca', 'export']);

  log('starting postgresql and filling pgbench tables');
  const pg = await startPostgres(caPem);
  cleanups.push(() => pg.stop());
  await pg.local('pgbench', ['-i', '-q', '-s', opts.scale, 'postgres']);

  const dbFile = path.join(dir, 'db.yaml');
  await writeFile(
    dbFile,
    [
      'kind: db',
      'metadata:',
      '  name: bench',
      'spec:',
      '  protocol: postgres',
      `  uri: 127.0.0.1:${pg.port}`,
      '  ca_cert: |',
      ...pg.serverCertPem
        .trim()
        .split('\n')
        .map((line) => `    ${line}`),
      '',
    ].join('\n'),
  );
  await postern.cli(['create', '-f', dbFile]);
  await createRole(postern, 'bench-db', [
    "db_labels: {'*': '*'}",
    "db_users: ['*']",
    "db_names: ['*']",
  ]);
  const { home } = await createCliLogin(postern, {
    user: 'bench',
    roles: ['bench-db'],
    dir: path.join(dir, 'home'),
  });
  const tunnel = await startAppTunnel(home, 'bench', 'db');
  cleanups.push(() => tunnel.stop());

  const login = await run(
    process.execPath,
    [posternBin, 'db', 'login', 'bench', '--db-user', 'postgres', '--db-name', 'postgres'],
    { env: { ...process.env, POSTERN_HOME: home } },
  );
  const nativeInfo = /psql "([^"]+)"/.exec(login.stdout)?.[1];
  if (!nativeInfo) throw new Error(`postern db login printed no psql line:\n${login.stdout}`);

  const client = await clientCertificate(postern, dir, pg.serverCertPem);
  const toDatabase = {
    port: pg.port,
    ca: pg.serverCertPem,
    cert: client.certPem,
    key: client.keyPem,
  };
  const relay = await startTlsRelay(toDatabase);
  cleanups.push(() => relay.stop());
  // The native listener's baseline takes TLS from the client too, with a client certificate.
  const relayServer = await selfSignedCertificate(path.join(dir, 'relay-server.crt'));
  const relayTls = await startTlsRelay({
    ...toDatabase,
    fromClient: { cert: relayServer.cert, key: relayServer.key, ca: caPem },
  });
  cleanups.push(() => relayTls.stop());

  const local = (port) =>
    `host=127.0.0.1 port=${port} user=postgres dbname=postgres sslmode=disable`;
  const paths = {
    native: nativeInfo,
    postern: local(tunnel.port),
    relay: local(relay.port),
    'relay-tls':
      `host=127.0.0.1 port=${relayTls.port} user=postgres dbname=postgres sslmode=verify-ca ` +
      `sslrootcert=${relayServer.file} sslcert=${client.certFile} sslkey=${client.keyFile}`,
    direct:
      `host=127.0.0.1 port=${pg.port} user=postgres dbname=postgres sslmode=verify-ca ` +
      `sslrootcert=${client.serverCaFile} sslcert=${client.certFile} sslkey=${client.keyFile}`,
  };

  const results = { tps: {}, latency: {}, copy: {} };
  const cpuUse = {};
  for (const name of Object.keys(paths)) {
    cpuUse[name] = { runs: [], transactions: 0 };
    results.tps[name] = [];
    results.latency[name] = [];
    results.copy[name] = [];
  }
  for (let round = 1; round <= runs; round++) {
    for (const [name, conninfo] of Object.entries(paths)) {
      log(`round ${round}/${runs}: ${name}: pgbench -S -c${clients}`);
      const bench = await pgbench(conninfo, clients, 2);
      results.tps[name].push(bench.tps);
      cpuUse[name].runs.push(bench.cpu);
      cpuUse[name].transactions += bench.transactions;
      log(`round ${round}/${runs}: ${name}: pgbench -S -c1`);
      results.latency[name].push((await pgbench(conninfo, 1, 1)).latencyMs);
      log(`round ${round}/${runs}: ${name}: COPY of ${fmt(copyBytes / MiB, 0)} MiB`);
      results.copy[name].push(await copyOut(conninfo, copyBytes));
    }
  }
  const figure = (kind, name) => median(results[kind][name]);
  // Each path against the relay with the same legs: the native listener takes TLS from the
  // client (relay-tls), the tunnel's loopback leg is plain (relay).
  for (const [name, label, relayName] of [
    ['native', 'native listener', 'relay-tls'],
    ['postern', 'tunnel (postern proxy db)', 'relay'],
  ]) {
    const judged = name === 'native';
    const tps = figure('tps', name);
    const relayTps = figure('tps', relayName);
    rows.push({
      figure: `(1) pgbench -S -c${clients} -j2, TPS, ${label}`,
      value: fmt(tps, 0),
      baseline: `${fmt(relayTps, 0)} ${relayName}`,
      compare: ratio(tps, relayTps),
      target: judged ? '≥ 0.85× relay' : '(context)',
      verdict: judged ? verdict(tps / relayTps >= 0.85) : '',
    });
    const latency = figure('latency', name);
    const relayLatency = figure('latency', relayName);
    rows.push({
      figure: `(2) pgbench -S -c1, average latency, ms, ${label}`,
      value: fmt(latency, 3),
      baseline: `${fmt(relayLatency, 3)} ${relayName}`,
      compare: `+${fmt(latency - relayLatency, 3)} ms`,
      target: judged ? '≤ relay + 0.3 ms' : '(context)',
      verdict: judged ? verdict(latency - relayLatency <= 0.3) : '',
    });
    const copy = figure('copy', name);
    rows.push({
      figure: `(3) COPY TO STDOUT, ${fmt(copyBytes / MiB, 0)} MiB, MiB/s, ${label}`,
      value: fmt(copy),
      baseline: `${fmt(figure('copy', 'direct'))} direct`,
      compare: ratio(copy, figure('copy', 'direct')),
      target: judged ? '≥ 0.7× direct' : '(context)',
      verdict: judged ? verdict(copy / figure('copy', 'direct') >= 0.7) : '',
    });
  }
  rows.push({
    figure: '  (direct over TLS: TPS / latency ms / COPY MiB/s)',
    value: '',
    baseline: `${fmt(figure('tps', 'direct'), 0)} / ${fmt(figure('latency', 'direct'), 3)} / ${fmt(figure('copy', 'direct'))}`,
    compare: '',
    target: '(context)',
    verdict: '',
  });
  rows.push({
    figure: '  (the relays: COPY MiB/s)',
    value: '',
    baseline: `${fmt(figure('copy', 'relay'))} relay, ${fmt(figure('copy', 'relay-tls'))} relay-tls`,
    compare: '',
    target: '(context)',
    verdict: '',
  });
  if (!opts['skip-mariadb']) {
    log('starting mariadb');
    const maria = await startMariadb(caPem);
    cleanups.push(() => maria.stop());
    await maria.sql(
      `create database slap; use slap; create table slap.t (id int primary key, c varchar(100));
       insert into slap.t select seq, concat('row-', seq) from seq_1_to_100000;
       create user 'bench'@'%' REQUIRE SUBJECT '/CN=bench'; grant all on *.* to 'bench'@'%';`,
    );
    const mariaFile = path.join(dir, 'maria.yaml');
    await writeFile(
      mariaFile,
      [
        'kind: db',
        'metadata:',
        '  name: maria',
        'spec:',
        '  protocol: mysql',
        `  uri: 127.0.0.1:${maria.port}`,
        '  ca_cert: |',
        ...maria.serverCertPem
          .trim()
          .split('\n')
          .map((line) => `    ${line}`),
        '',
      ].join('\n'),
    );
    await postern.cli(['create', '-f', mariaFile]);
    const mariaTunnel = await startAppTunnel(home, 'maria', 'db');
    cleanups.push(() => mariaTunnel.stop());
    const mariaClient = await clientCertificate(postern, dir, maria.serverCertPem, 'bench');
    const mariaLogin = await run(
      process.execPath,
      [posternBin, 'db', 'login', 'maria', '--db-user', 'bench', '--db-name', 'slap'],
      { env: { ...process.env, POSTERN_HOME: home } },
    );
    const nativeArgs = /^ {2}mariadb (.+)$/m.exec(mariaLogin.stdout)?.[1]?.split(' ');
    if (!nativeArgs)
      throw new Error(`postern db login printed no mariadb line:\n${mariaLogin.stdout}`);
    const slapPaths = {
      postern: ['-h', '127.0.0.1', '-P', String(mariaTunnel.port), '--skip-ssl'],
      // mariadb-slap names its user and schema itself (-u, --create-schema).
      native: nativeArgs.filter((arg) => !/^--(user|database)=/.test(arg)),
      direct: [
        '-h',
        '127.0.0.1',
        '-P',
        String(maria.port),
        `--ssl-ca=${mariaClient.serverCaFile}`,
        `--ssl-cert=${mariaClient.certFile}`,
        `--ssl-key=${mariaClient.keyFile}`,
      ],
    };
    const qps = {};
    for (const [name, args] of Object.entries(slapPaths)) {
      log(`mariadb-slap: ${name}`);
      qps[name] = await slap(args, clients);
    }
    rows.push({
      figure: `(4) mariadb-slap point selects, ${clients} clients, queries/s: native listener`,
      value: fmt(qps.native, 0),
      baseline: `${fmt(qps.direct, 0)} direct`,
      compare: ratio(qps.native, qps.direct),
      target: '(context: no MySQL relay)',
      verdict: '',
    });
    rows.push({
      figure: `(4) the same through postern proxy db`,
      value: fmt(qps.postern, 0),
      baseline: `${fmt(qps.direct, 0)} direct`,
      compare: ratio(qps.postern, qps.direct),
      target: '(context)',
      verdict: '',
    });
  }
  for (const kind of Object.keys(results)) {
    const each = Object.entries(results[kind])
      .map(
        ([name, values]) =>
          `${name} ${values.map((v) => fmt(v, kind === 'latency' ? 3 : 0)).join('/')}`,
      )
      .join(', ');
    context.push(`${kind} per round: ${each}`);
  }
  // What a transaction of (1) cost each part of the machine: the relays' share is the bench
  // process, Postern's is split into its main thread and the rest (the audit writer above all).
  context.push(
    '',
    `CPU per transaction of (1), pgbench -S -c${clients}, by part (/proc), over its rounds:`,
  );
  for (const [name, { runs: spent, transactions }] of Object.entries(cpuUse)) {
    const unit = { unit: 'µs/transaction', scale: 1000, digits: 0, floor: 1 };
    context.push(`  ${name.padEnd(9)} ${perUnit(sumSpent(spent), transactions, unit)}`);
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}
console.log('');
printTable(rows);
console.log('');
for (const line of context) console.log(line);
console.log(`load average ${load()} at the end`);

/** mariadb-slap running point selects for about --duration: queries per second. */
async function slap(args, concurrency) {
  const queries = Math.max(2000, Math.round(duration * 4000));
  const { stdout } = await run(
    'mariadb-slap',
    [
      '--no-defaults',
      ...args,
      '-u',
      'bench',
      `--concurrency=${concurrency}`,
      '--iterations=1',
      `--number-of-queries=${queries}`,
      '--create-schema=slap',
      '--query=SELECT c FROM t WHERE id = 4242',
    ],
    { timeout: 600_000 },
  );
  const seconds = Number(
    /Average number of seconds to run all queries: ([\d.]+)/.exec(stdout)?.[1],
  );
  if (!(seconds > 0)) throw new Error(`mariadb-slap printed no time:\n${stdout}`);
  return queries / seconds;
}

/** pgbench -S against `conninfo`: its TPS and average latency. */
/** The parts of the path: the relays run in the bench's own process; postern proxy db is 'tunnel'. */
function dbParts(comm, cmdline) {
  if (isPostern(comm, cmdline)) return 'postern';
  if (comm === 'node' && /postern\.js\0proxy\0db/.test(cmdline)) return 'tunnel';
  if (comm === 'postgres' || comm === 'pgbench' || comm === 'psql') return comm;
  if (cmdline.includes('bench/db.mjs')) return 'bench (relays)';
  return 'other';
}

async function pgbench(conninfo, clientCount, threads) {
  const cpuBefore = cpuSnapshot(dbParts, { splitPostern: true, reaped: 'pgbench' });
  const begin = process.hrtime.bigint();
  const { stdout } = await run(
    'pgbench',
    [
      '-S',
      '-n',
      '-c',
      String(clientCount),
      '-j',
      String(threads),
      '-T',
      String(duration),
      conninfo,
    ],
    { timeout: (duration + 120) * 1000, maxBuffer: 1 << 24 },
  );
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  const cpu = cpuSpent(
    cpuBefore,
    cpuSnapshot(dbParts, { splitPostern: true, reaped: 'pgbench' }),
    seconds,
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1];
  const latency = /latency average = ([\d.]+) ms/.exec(stdout)?.[1];
  const done = /number of transactions actually processed: (\d+)/.exec(stdout)?.[1];
  if (!tps || !latency || !done) throw new Error(`pgbench printed no figures:\n${stdout}`);
  return { tps: Number(tps), latencyMs: Number(latency), transactions: Number(done), cpu };
}

/** psql's COPY of generated rows (1 KiB a row, newline included) to /dev/null: MiB/s. */
async function copyOut(conninfo, bytes) {
  const rowCount = Math.floor(bytes / 1024);
  const query = `\\copy (select repeat('x', 1023) from generate_series(1, ${rowCount})) to '/dev/null'`;
  const begin = process.hrtime.bigint();
  await run('psql', [conninfo, '-X', '-q', '-c', query], { timeout: 900_000 });
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;
  return (rowCount * 1024) / MiB / seconds;
}

/**
 * A client certificate for `postgres` from the running server's database client CA (through its
 * built modules), written where libpq reads it for the direct path and the relay.
 */
async function clientCertificate(postern, into, serverCertPem, dbUser = 'postgres') {
  const dist = path.join(repoRoot, 'packages/server/dist');
  const loadModule = (file) => import(pathToFileURL(path.join(dist, file)).href);
  const { openBackend } = await loadModule('backend/index.js');
  const { DatabaseClientCa } = await loadModule('wings/databases/db-client-ca.js');
  const backend = await openBackend({
    type: 'sqlite',
    path: path.join(postern.dataDir, 'postern.db'),
  });
  try {
    const ca = await DatabaseClientCa.load(backend, postern.clusterName);
    const issued = await ca.clientCertificate(dbUser);
    const files = {
      certFile: path.join(into, `${dbUser}.crt`),
      keyFile: path.join(into, `${dbUser}.key`),
      serverCaFile: path.join(into, `${dbUser}-server-ca.crt`),
    };
    await writeFile(files.certFile, issued.certPem, { mode: 0o644 });
    await writeFile(files.keyFile, issued.keyPem, { mode: 0o600 });
    await writeFile(files.serverCaFile, serverCertPem, { mode: 0o644 });
    return { ...issued, ...files };
  } finally {
    await backend.close();
  }
}

/** A self-signed server certificate for the TLS relay, its PEM also written to `file`. */
async function selfSignedCertificate(file) {
  const module = path.join(repoRoot, 'packages/server/dist/tls/self-signed.js');
  const { createSelfSigned } = await import(pathToFileURL(module).href);
  const made = await createSelfSigned(['localhost', '127.0.0.1']);
  await writeFile(file, made.cert, { mode: 0o644 });
  return { ...made, file };
}

function ratio(a, b) {
  return `${fmt(a / b, 2)}×`;
}

function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(text.trim());
  if (!match) return NaN;
  const unit = { '': 1, K: 1024, M: MiB, G: 1024 * MiB }[match[2].toUpperCase()];
  return Math.floor(Number(match[1]) * unit);
}
