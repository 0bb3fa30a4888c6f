import { connectorKinds, secretPlaceholder, type ConnectorKind } from '@postern/contracts';
import { ConfigError } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import { connectorToYaml, mapSecrets } from '../access-control/connectors/connector.yaml.js';
import type { AdminContext } from './admin-context.js';
import type { Document } from './documents.js';
import { printTable, type Print } from './table.js';
import { cliActor } from './users.commands.js';

/** `get oidc|saml|github`, one kind; `get connectors`, all three. */
export const connectorKindWords: Record<string, readonly ConnectorKind[]> = {
  oidc: ['oidc'],
  saml: ['saml'],
  github: ['github'],
  connectors: connectorKinds,
};

export const isConnectorKind = (kind: string): kind is ConnectorKind =>
  (connectorKinds as readonly string[]).includes(kind);

/**
 * `postern get oidc|saml|github|connectors [NAME]`: YAML by default, what `create -f` reads back.
 * Secrets are printed as the placeholder, as the console shows them: `create -f --force` with
 * the placeholder keeps the stored secret, so an exported connector can be edited and applied
 * without anyone handling its secret.
 */
export async function getConnectors(
  ctx: AdminContext,
  kinds: readonly ConnectorKind[],
  name: string | undefined,
  format: 'yaml' | 'json' | 'text',
  print: Print,
): Promise<void> {
  const actor = hostActor(cliActor());
  const all = (await Promise.all(kinds.map((kind) => ctx.access.connectors.list(kind, actor))))
    .flat()
    .filter((connector) => name === undefined || connector.metadata.name === name);
  if (name !== undefined && all.length === 0) {
    throw new ConfigError(`connector ${name} not found`);
  }
  if (format === 'text') {
    const rows = all.map((c) => [c.metadata.name, c.kind, c.spec.display ?? '']);
    return printTable(['NAME', 'KIND', 'DISPLAY'], rows, print);
  }
  if (format === 'json') {
    const masked = all.map((connector) => mapSecrets(connector, () => secretPlaceholder));
    return print(JSON.stringify(masked, null, 2));
  }
  print(all.map((connector) => connectorToYaml(connector).trimEnd()).join('\n---\n'));
}

/** One connector document of `create -f`: new, or with --force saved over the existing one. */
export async function createConnector(
  ctx: AdminContext,
  kind: ConnectorKind,
  doc: Document,
  force: boolean,
): Promise<string> {
  const actor = hostActor(cliActor());
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

/** `postern rm oidc/NAME | saml/NAME | github/NAME`. */
export async function removeConnector(ctx: AdminContext, kind: ConnectorKind, name: string) {
  await ctx.access.connectors.remove(kind, name, hostActor(cliActor()));
}
