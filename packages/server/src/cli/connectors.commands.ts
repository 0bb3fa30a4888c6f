import {
  connectorKinds,
  secretPlaceholder,
  type Connector,
  type ConnectorKind,
} from '@postern/contracts';
import { ConfigError } from '../config/config.js';
import type { Actor } from '../access-control/access/actor.js';
import { connectorToYaml, mapSecrets } from '../access-control/connectors/connector.yaml.js';
import type { AdminContext } from './admin-context.js';
import type { Document } from './documents.js';
import type { CliKind } from './kinds.js';

/**
 * One row of the kinds table per connector kind (`get oidc`, `create -f`, `rm oidc/NAME`); the
 * table's `connectors` group lists all three. YAML by default, what `create -f` reads back.
 * Secrets are printed as the placeholder, as the console shows them: `create -f --force` with
 * the placeholder keeps the stored secret, so an exported connector can be edited and applied
 * without anyone handling its secret.
 */
export const connectorCliKinds = connectorKinds.map((kind): CliKind<Connector> => ({
  kind,
  words: [kind],
  noun: 'connector',
  title: `${kind} connector`,
  refExample: `${kind}/NAME`,
  defaultFormat: 'yaml',
  list: (ctx, actor) => ctx.access.connectors.list(kind, actor),
  nameOf: (connector) => connector.metadata.name,
  text: {
    header: ['NAME', 'KIND', 'DISPLAY'],
    row: (c) => [c.metadata.name, c.kind, c.spec.display ?? ''],
  },
  yaml: (connector) => connectorToYaml(connector),
  json: (connector) => mapSecrets(connector, () => secretPlaceholder),
  create: (ctx, doc, force, actor) => createConnector(ctx, kind, doc, force, actor),
  remove: (ctx, name, actor) => ctx.access.connectors.remove(kind, name, actor),
}));

/** One connector document of `create -f`: new, or with --force saved over the existing one. */
async function createConnector(
  ctx: AdminContext,
  kind: ConnectorKind,
  doc: Document,
  force: boolean,
  actor: Actor,
): Promise<string> {
  const name = (doc.value.metadata as { name?: unknown } | undefined)?.name;
  const existing =
    typeof name === 'string' ? await ctx.access.connectors.forLogin(kind, name) : null;
  // The document's own text, so a schema error names its line (inDocument adds the offset).
  const content = doc.text;
  if (!existing) {
    const connector = await ctx.access.connectors.create(kind, content, actor);
    return `${kind} connector ${connector.metadata.name} has been created`;
  }
  if (!force) {
    throw new ConfigError(
      `${kind} connector ${existing.metadata.name} already exists: pass --force to overwrite`,
    );
  }
  // Whatever revision the file carries (a `postern get` of earlier): --force overwrites.
  await ctx.access.connectors.put(kind, content, actor);
  return `${kind} connector ${existing.metadata.name} has been overwritten`;
}
