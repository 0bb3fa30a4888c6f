import type { Actor } from '../../access-control/access/actor.js';
import type { AdminContext } from '../../cli/admin-context.js';
import type { CliKind } from '../../cli/kinds.js';
import { ConfigError } from '../../config/config-error.js';
import type { RemoteCluster } from './remote-clusters.store.js';
import { parseTrustedClusterYaml, trustedClusterToYaml } from './trusted-cluster.yaml.js';
import { emitAudit } from '../audit/emit.js';
import type { StoredTrustedCluster } from './trusted-clusters.store.js';

/**
 * The CLI's trusted clusters: `get trusted_cluster`, `create -f` (which asks the root, as the
 * console does) and `rm trusted_cluster/NAME` on a leaf; `get remote_cluster` and
 * `rm remote_cluster/NAME` (the root stops trusting a leaf) on a root. Services load in the
 * actions, so the CLI starts light.
 */
async function leafService(ctx: AdminContext) {
  const [{ TrustedClustersService }, { TrustedClustersStore }, { clusterKey }, { askRootToTrust }] =
    await Promise.all([
      import('./trusted-clusters.service.js'),
      import('./trusted-clusters.store.js'),
      import('./cluster-keys.js'),
      import('./root-client.js'),
    ]);
  const clusterName = ctx.config.clusterName;
  return new TrustedClustersService({
    store: new TrustedClustersStore(ctx.backend),
    audit: ctx.audit,
    clusterName,
    askRoot: async (resource) =>
      askRootToTrust(
        resource,
        { name: clusterName, key: await clusterKey(ctx.backend, 'tunnel') },
        { insecure: process.env.POSTERN_INSECURE_TLS === '1', now: Date.now },
      ),
    // The link's state lives in the running server; `get` shows the resource only.
    status: () => undefined,
  });
}

async function createTrustedCluster(
  ctx: AdminContext,
  text: string,
  force: boolean,
  actor: Actor,
): Promise<string> {
  const service = await leafService(ctx);
  const name = parseTrustedClusterYaml(text).metadata.name;
  const existing = (await service.list(actor)).find((tc) => tc.metadata.name === name);
  if (!existing) {
    await service.create(text, actor);
    return `trusted cluster ${name} has been created: this cluster now trusts ${name}`;
  }
  if (!force)
    throw new ConfigError(`trusted cluster ${name} already exists: pass --force to overwrite`);
  const { stringify, parse } = await import('yaml');
  const doc = parse(text) as { metadata: Record<string, unknown> };
  doc.metadata.revision = existing.metadata.revision;
  await service.update(name, stringify(doc), actor);
  return `trusted cluster ${name} has been overwritten`;
}

export const trustedClusterCliKind: CliKind<StoredTrustedCluster> = {
  kind: 'trusted_cluster',
  words: ['trusted_clusters', 'trusted_cluster', 'tc'],
  noun: 'trusted cluster',
  title: 'trusted cluster',
  refExample: 'trusted_cluster/NAME',
  defaultFormat: 'yaml',
  list: async (ctx, actor) => (await leafService(ctx)).list(actor),
  nameOf: (tc) => tc.metadata.name,
  text: {
    header: ['NAME', 'ENABLED', 'ROOT PROXY'],
    row: (tc) => [tc.metadata.name, String(tc.spec.enabled), tc.spec.web_proxy_addr],
  },
  yaml: (tc) => trustedClusterToYaml(tc),
  json: ({ trust: _trust, ...tc }) => ({ ...tc, spec: { ...tc.spec, token: '**********' } }),
  create: (ctx, doc, force, actor) => createTrustedCluster(ctx, doc.text, force, actor),
  remove: async (ctx, name, actor) => (await leafService(ctx)).remove(name, actor),
};

export const remoteClusterCliKind: CliKind<RemoteCluster> = {
  kind: 'remote_cluster',
  words: ['remote_clusters', 'remote_cluster', 'rc'],
  noun: 'remote cluster',
  title: 'remote cluster',
  refExample: 'remote_cluster/NAME',
  defaultFormat: 'text',
  list: async (ctx) => {
    const { RemoteClustersStore } = await import('./remote-clusters.store.js');
    return new RemoteClustersStore(ctx.backend).list();
  },
  nameOf: (rc) => rc.name,
  text: {
    header: ['NAME', 'LAST HEARD', 'SERVERS', 'VERSION'],
    row: (rc) => [
      rc.name,
      rc.lastHeartbeat ?? 'never',
      String(rc.report?.nodeCount ?? ''),
      rc.report?.version ?? '',
    ],
  },
  // The root stops trusting the leaf: its tunnel closes on every proxy (they watch the record).
  remove: async (ctx, name, actor) => {
    const { RemoteClustersStore } = await import('./remote-clusters.store.js');
    if (!(await new RemoteClustersStore(ctx.backend).delete(name))) {
      throw new ConfigError(`remote cluster ${name} not found`);
    }
    await emitAudit(ctx.audit, 'T7001I', { user: actor.name, name });
  },
};
