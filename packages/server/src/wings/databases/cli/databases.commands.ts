import { databaseResourceSchema } from '@postern/contracts';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { AdminContext } from '../../../cli/admin-context.js';
import { addCliKind, type CliKind, type TableView } from '../../../cli/kinds.js';
import { listenThroughProxy } from '../../../cli/login/tunnel-listener.js';
import { commandGroup, print, withAdmin, withStorageFlags } from '../../../cli/program.js';
import { labelsCell } from '../../../cli/table.js';
import { ConfigError, type ConfigFlags } from '../../../config/config.js';
import { asResource } from '../../../modules/inventory/resource-catalog.js';
import { DatabasesService, type DatabaseRow } from '../databases.service.js';
import { databaseTypeTitle } from '../db-kind.js';
import { caExportText } from './ca-export.js';
import {
  connectCommand,
  connectionUri,
  fetchDatabase,
  listDatabases,
  loginCommand,
  type ConnectFlags,
} from './db-client.js';
import { askCodeOn } from '../../../cli/login/session-mfa.js';
import { tunnelTarget } from '../../../cli/login/tunnel-target.js';

/** The databases in storage, loaded for one command. */
async function withDatabases<T>(ctx: AdminContext, run: (dbs: DatabasesService) => Promise<T>) {
  const databases = new DatabasesService(ctx.backend, ctx.audit, { configured: [] });
  await databases.inventory.start();
  try {
    return await run(databases);
  } finally {
    await databases.close();
  }
}

const columns: TableView<DatabaseRow> = {
  header: ['NAME', 'TYPE', 'URI', 'SOURCE', 'STATUS', 'LABELS'],
  row: ({ resource, status, labels }) => [
    resource.metadata.name,
    databaseTypeTitle(resource),
    resource.spec.uri,
    resource.source,
    status,
    labelsCell(labels),
  ],
};

/** `get db`, `create -f db.yaml`, `rm db/NAME`. */
export const databaseCliKind: CliKind<DatabaseRow> = {
  kind: 'db',
  words: ['db', 'databases', 'database'],
  noun: 'database',
  title: 'database',
  refExample: 'db/NAME',
  defaultFormat: 'text',
  list: (ctx) => withDatabases(ctx, async (dbs) => dbs.rows()),
  nameOf: (row) => row.resource.metadata.name,
  text: columns,
  yaml: ({ resource }) => stringify(asResource(resource)),
  json: ({ resource }) => asResource(resource),
  create: async (ctx, doc, force, actor) => {
    const parsed = databaseResourceSchema.safeParse(doc.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(
        `db (line ${doc.firstLine}): ${issue.path.join('.') || 'document'}: ${issue.message}`,
      );
    }
    const { created } = await withDatabases(ctx, (dbs) => dbs.create(parsed.data, actor, force));
    return `database ${parsed.data.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => withDatabases(ctx, (dbs) => dbs.remove(name, actor)),
};

/**
 * The databases wing's commands: `postern db ls|connect|config`, `postern db ca export`,
 * `postern proxy db`, and the db kind for get, create and rm.
 */
export function addDatabaseCommands(program: Command): void {
  addCliKind(databaseCliKind);
  const db = commandGroup(program, 'db', 'reach databases through the proxy');

  db.command('ls')
    .description('list the databases you may reach, with the users and names your roles allow')
    .option('--cluster <leaf>', "a trusted leaf cluster's databases, through this one")
    .action((flags: { cluster?: string }) => listDatabases(process.env, print, flags.cluster));

  const connectFlags = (command: Command) =>
    command
      .requiredOption('--db-user <user>', 'the database user to connect as')
      .option(
        '--db-name <name>',
        'the database to open (default: PostgreSQL the database user, MySQL none)',
      );
  const clusterFlag = (command: Command) =>
    command.option('--cluster <leaf>', "a trusted leaf cluster's database, through this one");

  clusterFlag(connectFlags(db.command('connect <name>')))
    .description('start psql or mariadb on the database NAME, tunnelled through the proxy')
    .action(async (name: string, flags: ConnectFlags) => {
      process.exitCode = await connectCommand(process.env, name, flags);
    });

  clusterFlag(connectFlags(db.command('login <name>')))
    .description(
      "get a certificate for the proxy's native listener (psql, mariadb and GUI tools, no tunnel)",
    )
    .action(async (name: string, flags: ConnectFlags) => {
      const { lines } = await loginCommand(process.env, name, flags);
      for (const line of lines) print(line);
    });

  clusterFlag(connectFlags(db.command('config <name>')))
    .description('print how a client connects: run `postern proxy db NAME` first')
    .option('--port <port>', 'the local port `postern proxy db` listens on (default: 5432/3306)')
    .action(async (name: string, flags: ConnectFlags & { port?: string }) => {
      const db = await fetchDatabase(process.env, name, flags.cluster);
      const port = Number(flags.port ?? (db.protocol === 'mysql' ? 3306 : 5432));
      const onCluster = flags.cluster ? ` --cluster ${flags.cluster}` : '';
      print(`Name:      ${name} (${db.protocol})${flags.cluster ? ` on ${flags.cluster}` : ''}`);
      print(`Host:      127.0.0.1`);
      print(`Port:      ${port} (postern proxy db ${name}${onCluster} --port ${port})`);
      print(`User:      ${flags.dbUser}`);
      print(`Database:  ${flags.dbName ?? (db.protocol === 'mysql' ? '(none)' : flags.dbUser)}`);
      print(`TLS:       off between the client and postern proxy db (loopback); on beyond it`);
      print(`URI:       ${connectionUri(db.protocol, port, flags)}`);
    });

  withStorageFlags(db.command('ca').command('export'))
    .description("print the database client CA's certificate and how a database trusts it")
    .action((flags: ConfigFlags) =>
      withAdmin(flags, async (ctx) => {
        const { DatabaseClientCa } = await import('../db-client-ca.js');
        const ca = await DatabaseClientCa.load(ctx.backend, ctx.config.clusterName);
        const { pem, hints } = caExportText(ca.certPem);
        print(pem);
        console.error(hints);
      }),
    );

  clusterFlag(
    commandGroup(program, 'proxy', 'local listeners that tunnel to resources through the proxy')
      .command('db <name>')
      .description('listen on 127.0.0.1 and tunnel each client connection to the database NAME')
      .option('--port <port>', 'the local port (default: a free one, printed)', '0'),
  ).action(async (name: string, flags: { port: string; cluster?: string }) => {
    // require_session_mfa: a code when a connection needs a fresh per-session certificate.
    const resource = { kind: 'db', name, cluster: flags.cluster } as const;
    const target = await tunnelTarget(process.env, resource, askCodeOn());
    const listener = await listenThroughProxy(process.env, target, Number(flags.port), (line) =>
      console.error(`postern: ${line}`),
    );
    print(`Proxying connections to ${target.name} on 127.0.0.1:${listener.port} (Ctrl-C to stop)`);
  });
}
