import { userNameSchema } from '@postern/contracts';
import { stringify } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config/config.js';
import type { Actor } from '../access-control/access/actor.js';
import { describeTarget } from '../access-control/locks/locks.service.js';
import type { LockResource } from '../access-control/locks/locks.store.js';
import { roleToYaml, type Role } from '../access-control/rbac/index.js';
import type { UserResource } from '../identity/users/users.store.js';
import type { AdminContext } from './admin-context.js';
import { connectorCliKinds } from './connectors.commands.js';
import { loginRuleCliKind } from '../access-control/login-rules/cli-kind.js';
import {
  remoteClusterCliKind,
  trustedClusterCliKind,
} from '../modules/trusted-clusters/cli-kinds.js';
import { parseDoc, type Document } from './documents.js';
import { printTable, type Print } from './table.js';

export type Format = 'yaml' | 'json' | 'text';

/** Columns of a kind as a table: `get --format text`, or an `ls` command. */
export interface TableView<T> {
  header: string[];
  row: (item: T, ctx: AdminContext) => string[];
}

/**
 * One kind the admin CLI handles: how `get`, `create -f`, `rm KIND/NAME` and its `ls` command
 * reach it and print it. A new kind (a wing's) adds a row to `cliKinds`; nothing else branches
 * on kind.
 */
export interface CliKind<T> {
  /** The kind as documents name it, and as `rm` prints it. */
  kind: string;
  /** The words `get` and `rm` accept, the first as the hints name it; none: not offered there. */
  words: readonly string[];
  /** What `get KIND NAME` says was not found (`role`, `connector`). */
  noun: string;
  /** What `rm` says was deleted (`role`, `oidc connector`). */
  title: string;
  /** How `rm` names one in its help (`role/NAME`). */
  refExample: string;
  defaultFormat: Format;
  list: (ctx: AdminContext, actor: Actor) => Promise<T[]>;
  nameOf: (item: T) => string;
  text: TableView<T>;
  /** As YAML, for `get` (default: the item as it is). */
  yaml?: (item: T) => string;
  /** As JSON, for `get` (default: the item as it is). */
  json?: (item: T) => unknown;
  /** Saves one document of `create -f`; returns the line to print. */
  create?: (ctx: AdminContext, doc: Document, force: boolean, actor: Actor) => Promise<string>;
  remove?: (ctx: AdminContext, name: string, actor: Actor) => Promise<void>;
  /** The kind's own `ls` command (`users ls`, `nodes ls`). */
  ls?: TableView<T> & { empty?: string; sort?: (a: T, b: T) => number };
}

/** What `get` prints of a user: the stored resource without its lockout status. */
const userDocument = ({ kind, version, metadata, spec }: UserResource) => ({
  kind,
  version,
  metadata,
  spec: { roles: spec.roles, traits: spec.traits },
});

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

const roleKind: CliKind<Role> = {
  kind: 'role',
  words: ['roles', 'role'],
  noun: 'role',
  title: 'role',
  refExample: 'role/NAME',
  defaultFormat: 'yaml',
  list: (ctx, actor) => ctx.access.roles.list(actor),
  nameOf: (role) => role.metadata.name,
  text: {
    header: ['NAME', 'DESCRIPTION'],
    row: (role) => [role.metadata.name, role.metadata.description ?? ''],
  },
  yaml: roleToYaml,
  // An existing role is refused unless --force, which overwrites it whatever its revision.
  create: async (ctx, doc, force, actor) => {
    if (!force) {
      const role = await ctx.access.roles.create(doc.text, actor);
      return `role ${role.metadata.name} has been created`;
    }
    const { role, created } = await ctx.access.roles.put(doc.text, actor);
    return `role ${role.metadata.name} has been ${created ? 'created' : 'overwritten'}`;
  },
  remove: (ctx, name, actor) => ctx.access.roles.remove(name, actor),
};

export const userKind: CliKind<UserResource> = {
  kind: 'user',
  words: ['users', 'user'],
  noun: 'user',
  title: 'user',
  refExample: 'user/NAME',
  defaultFormat: 'text',
  list: (ctx) => ctx.identity.users.list(),
  nameOf: (user) => user.metadata.name,
  text: {
    header: ['NAME', 'ROLES', 'LOGINS'],
    row: (user) => [
      user.metadata.name,
      user.spec.roles.join(','),
      (user.spec.traits.logins ?? []).join(','),
    ],
  },
  yaml: (user) => yamlOf(userDocument(user)),
  json: userDocument,
  create: async (ctx, doc, force, actor) => {
    const { metadata, spec } = parseDoc(userFileSchema, doc);
    const exists = (await ctx.identity.users.store.get(metadata.name)) !== null;
    if (exists && !force) {
      throw new ConfigError(`user ${metadata.name} already exists: pass --force to overwrite`);
    }
    const input = { name: metadata.name, roles: spec.roles, traits: spec.traits ?? {} };
    if (exists) await ctx.identity.users.update(input, actor.name);
    else await ctx.identity.users.create(input, actor.name);
    return `user ${metadata.name} has been ${exists ? 'overwritten' : 'created'}`;
  },
  remove: (ctx, name, actor) => ctx.identity.users.remove(name, actor.name),
  ls: {
    header: ['NAME', 'ROLES', 'LOCKED'],
    row: (user, ctx) => [
      user.metadata.name,
      user.spec.roles.join(','),
      ctx.identity.users.isLocked(user) ? `until ${user.status.lockedUntil}` : 'no',
    ],
  },
};

const lockKind: CliKind<LockResource> = {
  kind: 'lock',
  words: ['locks', 'lock'],
  noun: 'lock',
  title: 'lock',
  refExample: 'lock/UUID',
  defaultFormat: 'text',
  list: (ctx, actor) => ctx.access.locks.list(actor),
  nameOf: (lock) => lock.metadata.name,
  text: {
    header: ['ID', 'TARGET', 'MESSAGE', 'EXPIRES', 'CREATED BY'],
    row: (lock) => [
      lock.metadata.name,
      describeTarget(lock),
      lock.spec.message,
      lock.spec.expires ?? 'never',
      lock.spec.createdBy,
    ],
  },
  // Locks are always new: their names are generated.
  create: async (ctx, doc, _force, actor) => {
    const { spec } = parseDoc(lockFileSchema, doc);
    const lock = await ctx.access.locks.create({ ...spec, targets: spec.target }, actor);
    return `lock ${lock.metadata.name} has been created`;
  },
  remove: (ctx, name, actor) => ctx.access.locks.remove(name, actor),
};

// Rows are typed per kind; the table holds them without their item type.
const row = <T>(kind: CliKind<T>) => kind as unknown as CliKind<unknown>;

const kinds: CliKind<unknown>[] = [
  row(roleKind),
  row(userKind),
  row(lockKind),
  ...connectorCliKinds.map(row),
  row(loginRuleCliKind),
  row(trustedClusterCliKind),
  row(remoteClusterCliKind),
];

/** Every kind the admin CLI knows, in the order its hints and help name them. */
export const cliKinds: readonly CliKind<unknown>[] = kinds;

/** How many of the table's rows are the platform's own; the wings' follow. */
const platformKinds = kinds.length;

/**
 * A wing's kind, added by its `commands` (apps): `get`, `create -f` and `rm` then reach it. The
 * wings' kinds are kept in the order of their names, so the hints read the same whichever wing's
 * commands were built first (a test that builds one wing's, in a worker shared with others).
 */
export function addCliKind<T>(kind: CliKind<T>): void {
  if (kinds.some((known) => known.kind === kind.kind)) return;
  const after = kinds.findIndex((known, at) => at >= platformKinds && known.kind > kind.kind);
  kinds.splice(after === -1 ? kinds.length : after, 0, row(kind));
}

/** Words `get` accepts for several kinds at once. */
export const kindGroups: Record<string, readonly string[]> = {
  connectors: connectorCliKinds.map((kind) => kind.kind),
};

/** `a, b or c`, as the hints list kinds. */
export const joinOr = (words: string[]) => `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
const offered = () => cliKinds.filter((kind) => kind.words.length > 0);

/** The kinds `get` names in its help and errors: `roles, users, ... or connectors`. */
export const getWords = () =>
  joinOr([...offered().map((kind) => kind.words[0]!), ...Object.keys(kindGroups)]);

/** How `rm` refs look, for its help: `role/NAME, user/NAME, ... or github/NAME`. */
export const removableRefs = () =>
  joinOr(
    offered()
      .filter((kind) => kind.remove)
      .map((kind) => kind.refExample),
  );

/** The kind a word names (`roles`, `role`, `oidc`); an unknown one stops the command. */
export function kindNamed(word: string): CliKind<unknown> {
  const kind = offered().find((candidate) => candidate.words.includes(word));
  if (!kind) throw new ConfigError(`unknown kind '${word}': use ${getWords()}`);
  return kind;
}

/** The kinds `get WORD` shows: one kind, or a group's. */
export function kindsForGet(word: string): CliKind<unknown>[] {
  const group = kindGroups[word];
  if (group) return group.map((name) => cliKinds.find((kind) => kind.kind === name)!);
  return [kindNamed(word)];
}

/** The kinds `create -f` takes, by their document kind. */
export const creatable = () => cliKinds.filter((kind) => kind.create);

/** `ls` of a kind that has one (`users ls`; a wing's, like `nodes ls`). */
export async function listKind<T>(ctx: AdminContext, kind: CliKind<T>, actor: Actor, print: Print) {
  const { ls } = kind;
  if (!ls) throw new Error(`no ls for kind ${kind.kind}`);
  const items = await kind.list(ctx, actor);
  if (items.length === 0 && ls.empty !== undefined) return print(ls.empty);
  if (ls.sort) items.sort(ls.sort);
  printTable(
    ls.header,
    items.map((item) => ls.row(item, ctx)),
    print,
  );
}

export const yamlOf = <T>(item: T) =>
  stringify(item, { lineWidth: 0, aliasDuplicateObjects: false });
