import {
  apiPaths,
  appListResponseSchema,
  appResourceSchema,
  type AppJson,
} from '@postern/contracts';
import { labelListCell, labelsCell, printTable, type Print } from '../../../cli/table.js';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { AdminContext } from '../../../cli/admin-context.js';
import { addCliKind, type CliKind, type TableView } from '../../../cli/kinds.js';
import { commandGroup, print, withAdmin, withStorageFlags } from '../../../cli/program.js';
import { ConfigError, type ConfigFlags } from '../../../config/config.js';
import { asResource } from '../../../modules/inventory/resource-catalog.js';
import { AppsService, type AppRow } from '../apps.service.js';
import { listenThroughProxy } from '../../../cli/login/tunnel-listener.js';
import { signedClient } from '../../../cli/login/signed-client.js';
import { askCodeOn } from '../../../cli/login/session-mfa.js';
import { leafNamed } from '../../../cli/login/nodes.js';
import { catalogPath, tunnelTarget } from '../../../cli/login/tunnel-target.js';

/** The apps in storage, loaded for one command. */
async function withApps<T>(ctx: AdminContext, run: (apps: AppsService) => Promise<T>) {
  const apps = new AppsService(ctx.backend, ctx.audit, {
    configApps: [],
    proxyHost: () => new URL(ctx.baseUrl).hostname,
  });
  await apps.inventory.start();
  try {
    return await run(apps);
  } finally {
    await apps.close();
  }
}

const columns: TableView<AppRow> = {
  header: ['NAME', 'URI', 'PUBLIC ADDRESS', 'SOURCE', 'STATUS', 'LABELS'],
  row: ({ resource, status, labels }, ctx) => [
    resource.metadata.name,
    resource.spec.uri,
    resource.spec.public_addr ?? `${resource.metadata.name}.${new URL(ctx.baseUrl).hostname}`,
    resource.source,
    status,
    labelsCell(labels),
  ],
};

/** `get apps`, `create -f app.yaml`, `rm app/NAME`: what an admin sees, status and source too. */
export const appCliKind: CliKind<AppRow> = {
  kind: 'app',
  words: ['apps', 'app'],
  noun: 'app',
  title: 'app',
  refExample: 'app/NAME',
  defaultFormat: 'text',
  list: (ctx) => withApps(ctx, async (apps) => apps.rows()),
  nameOf: (row) => row.resource.metadata.name,
  text: columns,
  yaml: ({ resource }) => stringify(asResource(resource)),
  json: ({ resource }) => asResource(resource),
  create: async (ctx, doc, force, actor) => {
    const parsed = appResourceSchema.safeParse(doc.value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError(
        `app (line ${doc.firstLine}): ${issue.path.join('.') || 'document'}: ${issue.message}`,
      );
    }
    const { created } = await withApps(ctx, (apps) => apps.create(parsed.data, actor, force));
    return `app ${parsed.data.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => withApps(ctx, (apps) => apps.remove(name, actor)),
};

/**
 * The apps wing's commands: `postern apps ls` and `postern proxy app` for users (signed with
 * their `postern login`), `postern apps jwt rotate` and the app kind (`get/create/rm app`) for
 * admins over the storage.
 */
export function addAppsCommands(program: Command): void {
  addCliKind(appCliKind);
  commandGroup(program, 'proxy', 'local listeners that tunnel to resources through the proxy')
    .command('app <name>')
    .description(
      'listen on 127.0.0.1 and tunnel each connection to the app NAME: any client of a TCP app, or plain HTTP (curl, scripts) to a web app',
    )
    .option('--port <port>', 'the local port (default: a free one, printed)', '0')
    .option('--cluster <leaf>', "a trusted leaf cluster's app, through this one")
    .action(async (name: string, flags: { port: string; cluster?: string }) => {
      // require_session_mfa: a code when a connection needs a fresh per-session certificate.
      const resource = { kind: 'app', name, cluster: flags.cluster } as const;
      const target = await tunnelTarget(process.env, resource, askCodeOn());
      const listener = await listenThroughProxy(process.env, target, Number(flags.port), (line) =>
        console.error(`postern: ${line}`),
      );
      print(
        `Proxying connections to ${target.name} on 127.0.0.1:${listener.port} (Ctrl-C to stop)`,
      );
    });
  const apps = program.command('apps').description('applications');
  apps
    .command('ls')
    .description('list the applications you may reach (after postern login)')
    .option('--cluster <leaf>', "a trusted leaf cluster's apps, through this one")
    .action(async (flags: { cluster?: string }) =>
      printApps(await fetchApps(process.env, flags.cluster), print, flags.cluster),
    );
  withStorageFlags(apps.command('jwt').command('rotate'))
    .description("make a new key for the apps' identity JWTs; the old one stays in the JWKS 20 min")
    .action((flags: ConfigFlags) =>
      withAdmin(flags, async (ctx) => {
        const { rotateAppJwtKey } = await import('../app-jwt.js');
        const { previousKid, kid } = await rotateAppJwtKey(ctx.backend);
        print(`The apps' JWTs are signed with key ${kid} from now on (every proxy within 30 s).`);
        if (previousKid) {
          print(`Key ${previousKid} stays in /.well-known/jwks.json for 20 minutes.`);
        }
      }),
    );
}

/**
 * Every app the signed-in user may reach, through the signed catalog (`appconnect`), or a
 * trusted leaf's (`cluster`), which the root forwards with the leaf session it grants.
 */
export async function fetchApps(env: NodeJS.ProcessEnv, cluster?: string): Promise<AppJson[]> {
  const { get, profile } = await signedClient(env);
  const leaf = leafNamed(cluster, profile);
  const path = catalogPath(apiPaths.appCatalog, apiPaths.apps, leaf);
  return (await get(path, appListResponseSchema)).items;
}

export function printApps(list: AppJson[], out: Print = print, cluster?: string): void {
  if (list.length === 0) return out('No applications that you may reach.');
  printTable(
    ['NAME', 'TYPE', 'ADDRESS', 'DESCRIPTION', 'LABELS'],
    list.map((app) => [
      app.name,
      app.isTcp ? 'tcp' : 'http',
      app.isTcp ? '-' : `https://${app.publicAddr}`,
      app.description ?? '',
      labelListCell(app.labels),
    ]),
    out,
  );
  out('');
  const onCluster = cluster ? ` --cluster ${cluster}` : '';
  out(`From here: postern proxy app NAME${onCluster} (any TCP client, or curl for an HTTP app)`);
}
