import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBackend } from './postgres.js';
import { RevisionedStore, type RevisionedKind } from './revisioned-store.js';
import { SqliteBackend } from './sqlite.js';
import { TestSchemas, testPostgresUrl } from './testing/postgres.testkit.js';
import { AlreadyExistsError, type Backend } from './types.js';

// The revisioned store that roles, connectors and locks use, for a kind made up here ("notes"
// under /notes/<shelf>/<name>), on a real SQLite file and on PostgreSQL.

interface Note {
  kind: 'note';
  metadata: { name: string; revision?: string };
  spec: { shelf: string; text: string };
}
type NoteRef = { shelf: string; name: string };

class NoteError extends Error {}
const noteKind: RevisionedKind<Note, NoteRef> = {
  prefix: '/notes/',
  keyOf: ({ shelf, name }) => `${shelf}/${name}`,
  refOf: (note) => ({ shelf: note.spec.shelf, name: note.metadata.name }),
  revisionInMetadata: true,
  isRef: ({ name }) => /^[a-z0-9-]+$/.test(name),
  errors: {
    notFound: ({ shelf, name }) => new NoteError(`note ${shelf}/${name} not found`),
    alreadyExists: ({ shelf, name }) => new NoteError(`note ${shelf}/${name} already exists`),
    changedMeanwhile: ({ name }) => new NoteError(`note ${name} changed meanwhile`),
  },
};
const note = (shelf: string, name: string, text = 'hello'): Note => ({
  kind: 'note',
  metadata: { name },
  spec: { shelf, text },
});

const schemas = new TestSchemas();
let sqliteDir: string;
beforeAll(async () => {
  sqliteDir = await mkdtemp(path.join(tmpdir(), 'postern-revisioned-'));
  await schemas.connect();
});
afterAll(async () => {
  await rm(sqliteDir, { recursive: true, force: true });
  await schemas.dropAll();
});

const backends: [string, () => Promise<Backend>][] = [
  ['SQLite file', async () => new SqliteBackend(path.join(sqliteDir, `${Math.random()}.db`))],
  ['PostgreSQL', () => PostgresBackend.open({ url: testPostgresUrl, schema: schemas.newName() })],
];

describe.each(backends)('RevisionedStore on %s', (_name, open) => {
  let backend: Backend;
  let notes: RevisionedStore<Note, NoteRef>;
  beforeAll(async () => {
    backend = await open();
    notes = new RevisionedStore(backend, noteKind);
  });
  afterAll(() => backend.close());

  it('creates, reads with the revision, and refuses to create what exists', async () => {
    const created = await notes.create(note('a', 'first'));
    expect(created.metadata.revision).toMatch(/.+/);
    expect(await notes.get({ shelf: 'a', name: 'first' })).toEqual(created);
    // The stored value carries no revision: the backend's is the truth.
    const item = await backend.get('/notes/a/first');
    expect(JSON.parse(item!.value).metadata).toEqual({ name: 'first' });
    await expect(notes.create(note('a', 'first', 'again'))).rejects.toThrow(
      'note a/first already exists',
    );
    expect((await notes.get({ shelf: 'a', name: 'first' }))?.spec.text).toBe('hello');
  });

  it('updates over the revision read, and refuses a stale one', async () => {
    const read = (await notes.create(note('b', 'cas')))!;
    const updated = await notes.update(
      { ...read, spec: { ...read.spec, text: 'v2' } },
      read.metadata.revision,
    );
    expect(updated.metadata.revision).not.toBe(read.metadata.revision);
    await expect(
      notes.update({ ...read, spec: { ...read.spec, text: 'lost' } }, read.metadata.revision),
    ).rejects.toThrow('note cas changed meanwhile');
    expect((await notes.get({ shelf: 'b', name: 'cas' }))?.spec.text).toBe('v2');
    // Without a revision the write is unconditional.
    await notes.update({ ...read, spec: { ...read.spec, text: 'forced' } }, undefined);
    expect((await notes.get({ shelf: 'b', name: 'cas' }))?.spec.text).toBe('forced');
    await expect(notes.update(note('b', 'absent'), undefined)).rejects.toThrow(
      'note b/absent not found',
    );
  });

  it('deletes, and says not found for what is gone or cannot be a name', async () => {
    await notes.create(note('c', 'gone'));
    await notes.delete({ shelf: 'c', name: 'gone' });
    expect(await notes.get({ shelf: 'c', name: 'gone' })).toBeNull();
    await expect(notes.delete({ shelf: 'c', name: 'gone' })).rejects.toThrow(
      'note c/gone not found',
    );
    expect(await notes.get({ shelf: 'c', name: 'Not A Name' })).toBeNull();
    await expect(notes.delete({ shelf: 'c', name: 'Not A Name' })).rejects.toBeInstanceOf(
      NoteError,
    );
  });

  it('lists in key order, everything or one part of the prefix', async () => {
    for (const name of ['zeta', 'alpha', 'mid']) await notes.create(note('d', name));
    await notes.create(note('e', 'other'));
    const names = (await notes.list('d/')).map((n) => n.metadata.name);
    expect(names).toEqual(['alpha', 'mid', 'zeta']);
    const all = await notes.list();
    expect(all.map((n) => `${n.spec.shelf}/${n.metadata.name}`)).toEqual(
      all.map((n) => `${n.spec.shelf}/${n.metadata.name}`).sort(),
    );
    expect(all.every((n) => typeof n.metadata.revision === 'string')).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it('without a kind error, lets the backend’s through; and sets the TTL it is told', async () => {
    const bare = new RevisionedStore<Note, string>(backend, {
      prefix: '/bare/',
      keyOf: (name) => name,
      refOf: (n) => n.metadata.name,
      revisionInMetadata: false,
      expiresOf: () => new Date(Date.now() + 3600_000).toISOString(),
      errors: { notFound: (name) => new NoteError(`${name} not found`) },
    });
    const created = await bare.create(note('x', 'one'));
    expect(created.metadata.revision).toBeUndefined();
    await expect(bare.create(note('x', 'one'))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect((await backend.get('/bare/one'))?.expires).toBeInstanceOf(Date);
  });
});
