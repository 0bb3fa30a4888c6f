import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { ConfigError } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import type { AdminContext } from './admin-context.js';
import { inDocument, readDocuments, type Document } from './documents.js';
import { creatable, joinOr, kindNamed, kindsForGet, type Format } from './kinds.js';
import { printTable, type Print } from './table.js';
import { cliActor } from './users.commands.js';

export type { Format };

/**
 * `postern get roles|users|locks|oidc|saml|github|connectors [NAME] [--format yaml|json|text]`:
 * each kind in its default format (roles and connectors as YAML, what `create -f` reads back;
 * users and locks as a table), as the kinds table says.
 */
export async function getResources(
  ctx: AdminContext,
  what: string,
  name: string | undefined,
  options: { format?: Format },
  print: Print,
): Promise<void> {
  const kinds = kindsForGet(what);
  const [first] = kinds;
  const format = options.format ?? first!.defaultFormat;
  const actor = hostActor(cliActor());
  const lists = await Promise.all(kinds.map((kind) => kind.list(ctx, actor)));
  // Each item with its kind, so that a group (connectors) prints every kind's the same way.
  const items = lists
    .flatMap((list, at) => list.map((item) => ({ item, kind: kinds[at]! })))
    .filter(({ item, kind }) => name === undefined || kind.nameOf(item) === name);
  if (name !== undefined && items.length === 0) {
    throw new ConfigError(`${first!.noun} ${name} not found`);
  }
  if (format === 'text') {
    const rows = items.map(({ item, kind }) => kind.text.row(item, ctx));
    return printTable(first!.text.header, rows, print);
  }
  if (format === 'json') {
    const json = items.map(({ item, kind }) => (kind.json ? kind.json(item) : item));
    return print(JSON.stringify(json, null, 2));
  }
  const yaml = items.map(({ item, kind }) => (kind.yaml ?? yamlOf)(item).trimEnd());
  print(yaml.join('\n---\n'));
}

const yamlOf = (item: unknown) => stringify(item, { lineWidth: 0, aliasDuplicateObjects: false });

/**
 * `postern create -f FILE [--force]`: any creatable kind (roles, users, locks, connectors, and the
 * wings' apps, databases, Kubernetes clusters and desktops) from YAML documents. An existing
 * resource is refused unless --force, which overwrites it (a role whatever its revision; a
 * connector keeps the stored secret where the file has the placeholder). Locks are always new
 * (their names are generated).
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
  const kinds = creatable();
  // A kind's other names count too: `windows_desktop` is the reference's name of a desktop.
  const kind = kinds.find(
    (candidate) => candidate.kind === doc.kind || candidate.words.includes(doc.kind),
  );
  if (!kind?.create) {
    const names = joinOr(kinds.map((candidate) => candidate.kind));
    throw new ConfigError(`unsupported kind '${doc.kind}': use ${names}`);
  }
  return kind.create(ctx, doc, force, hostActor(cliActor()));
}

/** `postern rm role/NAME | user/NAME | lock/UUID | oidc/NAME | saml/NAME | github/NAME`. */
export async function removeResource(ctx: AdminContext, ref: string, print: Print) {
  const match = /^([a-z][a-z_]*)\/(.+)$/.exec(ref);
  if (!match) throw new ConfigError(`'${ref}' is not KIND/NAME, for example role/auditor`);
  const name = match[2] ?? '';
  const kind = kindNamed(match[1] ?? '');
  if (!kind.remove) throw new ConfigError(`'${match[1]}' cannot be removed with rm`);
  await kind.remove(ctx, name, hostActor(cliActor()));
  print(`${kind.title} ${name} has been deleted`);
}
