import { readFile } from 'node:fs/promises';
import { userNameSchema, type ConnectorKind } from '@postern/contracts';
import { stringify } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import { describeTarget } from '../access-control/locks/locks.service.js';
import { roleToYaml } from '../access-control/rbac/index.js';
import type { UserResource } from '../identity/users/users.store.js';
import type { AdminContext } from './admin-context.js';
import { inDocument, readDocuments, type Document } from './documents.js';
import { printTable, type Print } from './table.js';
import {
  connectorKindWords,
  createConnector,
  getConnectors,
  isConnectorKind,
  removeConnector,
} from './connectors.commands.js';
import { cliActor } from './users.commands.js';

export type Format = 'yaml' | 'json' | 'text';
const kinds = {
  roles: 'role',
  role: 'role',
  users: 'user',
  user: 'user',
  locks: 'lock',
  lock: 'lock',
} as const;
type Kind = (typeof kinds)[keyof typeof kinds];

const kindsHint = 'use roles, users, locks, oidc, saml, github or connectors';

function kindOf(text: string): Kind {
  const kind = (kinds as Record<string, Kind>)[text];
  if (!kind) throw new ConfigError(`unknown kind '${text}': ${kindsHint}`);
  return kind;
}

/** What `get` prints of a user: the stored resource without its lockout status. */
const userDocument = ({ kind, version, metadata, spec }: UserResource) => ({
  kind,
  version,
  metadata,
  spec: { roles: spec.roles, traits: spec.traits },
});

/**
 * `postern get roles|users|locks|oidc|saml|github|connectors [NAME] [--format yaml|json|text]`:
 * roles and connectors as YAML by default (what `create -f` reads back), users and locks as a
 * table.
 */
export async function getResources(
  ctx: AdminContext,
  what: string,
  name: string | undefined,
  options: { format?: Format },
  print: Print,
): Promise<void> {
  const connectorKinds = connectorKindWords[what];
  if (connectorKinds) {
    return getConnectors(ctx, connectorKinds, name, options.format ?? 'yaml', print);
  }
  const kind = kindOf(what);
  const format = options.format ?? (kind === 'role' ? 'yaml' : 'text');
  const actor = hostActor(cliActor());
  const one = <T>(items: T[], nameOf: (item: T) => string) => {
    if (name === undefined) return items;
    const found = items.filter((item) => nameOf(item) === name);
    if (found.length === 0) throw new ConfigError(`${kind} ${name} not found`);
    return found;
  };
  if (kind === 'role') {
    const roles = one(await ctx.access.roles.list(actor), (role) => role.metadata.name);
    if (format === 'text') {
      const rows = roles.map((role) => [role.metadata.name, role.metadata.description ?? '']);
      return printTable(['NAME', 'DESCRIPTION'], rows, print);
    }
    return emit(roles, format, print, roleToYaml);
  }
  if (kind === 'user') {
    const users = one(await ctx.identity.users.list(), (user) => user.metadata.name);
    if (format === 'text') {
      const rows = users.map((user) => [
        user.metadata.name,
        user.spec.roles.join(','),
        (user.spec.traits.logins ?? []).join(','),
      ]);
      return printTable(['NAME', 'ROLES', 'LOGINS'], rows, print);
    }
    return emit(users.map(userDocument), format, print);
  }
  const locks = one(await ctx.access.locks.list(actor), (lock) => lock.metadata.name);
  if (format === 'text') {
    const rows = locks.map((lock) => [
      lock.metadata.name,
      describeTarget(lock),
      lock.spec.message,
      lock.spec.expires ?? 'never',
      lock.spec.createdBy,
    ]);
    return printTable(['ID', 'TARGET', 'MESSAGE', 'EXPIRES', 'CREATED BY'], rows, print);
  }
  return emit(locks, format, print);
}

function emit<T>(items: T[], format: 'yaml' | 'json', print: Print, toYaml = yamlOf<T>) {
  if (format === 'json') return print(JSON.stringify(items, null, 2));
  print(items.map((item) => toYaml(item).trimEnd()).join('\n---\n'));
}

const yamlOf = <T>(item: T) => stringify(item, { lineWidth: 0, aliasDuplicateObjects: false });

const userFileSchema = z.object({
  kind: z.literal('user'),
  version: z.literal('v2').optional(),
  metadata: z.object({ name: userNameSchema }),
  spec: z.object({
    roles: z.array(z.string()).min(1, 'give the user at least one role'),
    traits: z.record(z.string(), z.array(z.string())).optional(),
  }),
});

const lockFileSchema = z.object({
  kind: z.literal('lock'),
  version: z.literal('v2').optional(),
  metadata: z.object({ name: z.string().optional() }).optional(),
  spec: z.object({
    target: z.record(z.string(), z.string()),
    message: z.string().optional(),
    expires: z.string().optional(),
    ttl: z.string().optional(),
  }),
});

/**
 * `postern create -f FILE [--force]`: roles, users, locks and connectors from YAML documents. An
 * existing role, user or connector is refused unless --force, which overwrites it (a role
 * whatever its revision; a connector keeps the stored secret where the file has the
 * placeholder). Locks are always new (their names are generated).
 */
export async function createFromFile(
  ctx: AdminContext,
  file: string,
  options: { force?: boolean },
  print: Print,
): Promise<void> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  for (const doc of readDocuments(file, text)) {
    print(await inDocument(file, doc, () => createOne(ctx, doc, Boolean(options.force))));
  }
}

async function createOne(ctx: AdminContext, doc: Document, force: boolean): Promise<string> {
  if (isConnectorKind(doc.kind)) return createConnector(ctx, doc.kind, doc, force);
  const actor = hostActor(cliActor());
  if (doc.kind === 'role') {
    if (!force) {
      const role = await ctx.access.roles.create(doc.text, actor);
      return `role ${role.metadata.name} has been created`;
    }
    const { role, created } = await ctx.access.roles.put(doc.text, actor);
    return `role ${role.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  }
  if (doc.kind === 'user') {
    const { metadata, spec } = parseDoc(userFileSchema, doc);
    const exists = (await ctx.identity.users.store.get(metadata.name)) !== null;
    if (exists && !force) {
      throw new ConfigError(`user ${metadata.name} already exists: pass --force to overwrite`);
    }
    const input = { name: metadata.name, roles: spec.roles, traits: spec.traits ?? {} };
    if (exists) await ctx.identity.users.update(input, actor.name);
    else await ctx.identity.users.create(input, actor.name);
    return `user ${metadata.name} has been ${exists ? 'overwritten' : 'created'}`;
  }
  if (doc.kind === 'lock') {
    const { spec } = parseDoc(lockFileSchema, doc);
    const lock = await ctx.access.locks.create({ ...spec, targets: spec.target }, actor);
    return `lock ${lock.metadata.name} has been created`;
  }
  throw new ConfigError(
    `unsupported kind '${doc.kind}': use role, user, lock, oidc, saml or github`,
  );
}

function parseDoc<S extends z.ZodType>(schema: S, doc: Document): z.output<S> {
  const result = schema.safeParse(doc.value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(problems.join('; '));
}

/** `postern rm role/NAME | user/NAME | lock/UUID | oidc/NAME | saml/NAME | github/NAME`. */
export async function removeResource(ctx: AdminContext, ref: string, print: Print) {
  const match = /^([a-z]+)\/(.+)$/.exec(ref);
  if (!match) throw new ConfigError(`'${ref}' is not KIND/NAME, for example role/auditor`);
  const name = match[2] ?? '';
  if (isConnectorKind(match[1] ?? '')) {
    const kind = match[1] as ConnectorKind;
    await removeConnector(ctx, kind, name);
    return print(`${kind} connector ${name} has been deleted`);
  }
  const kind = kindOf(match[1] ?? '');
  const actor = hostActor(cliActor());
  if (kind === 'role') await ctx.access.roles.remove(name, actor);
  else if (kind === 'user') await ctx.identity.users.remove(name, actor.name);
  else await ctx.access.locks.remove(name, actor);
  print(`${kind} ${name} has been deleted`);
}
