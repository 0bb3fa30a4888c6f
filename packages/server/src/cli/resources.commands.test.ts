import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { SqliteAuditStore } from '../modules/audit/index.js';
import { cliDataDir } from './cli-harness.testkit.js';
import { createFromFile, getResources, removeResource } from './resources.commands.js';
import { usersRemove, usersUpdate } from './users.commands.js';

const { state, run, failure, file } = cliDataDir();

const resources = `kind: role
version: v7
metadata:
  name: ops
spec:
  allow:
    logins: [ops]
    node_labels: {env: prod}
---
kind: user
version: v2
metadata: {name: olga}
spec:
  roles: [ops]
  traits: {logins: [olga]}
---
kind: lock
version: v2
metadata: {}
spec:
  target: {role: ops}
  message: change freeze
`;

describe('postern get, create, rm', () => {
  it('get roles prints the preset roles as YAML documents by default, or JSON or a table', async () => {
    const yaml = (await run((ctx, print) => getResources(ctx, 'roles', undefined, {}, print))).join(
      '\n',
    );
    const names = parseAllDocuments(yaml).map((doc) => doc.toJS().metadata.name);
    expect(names).toEqual(['access', 'auditor', 'editor']);
    const json = await run((ctx, print) =>
      getResources(ctx, 'roles', 'editor', { format: 'json' }, print),
    );
    expect(JSON.parse(json.join('\n'))[0].spec.allow.rules[0].resources).toContain('user');
    const table = await run((ctx, print) =>
      getResources(ctx, 'roles', undefined, { format: 'text' }, print),
    );
    expect(table[0]).toMatch(/^NAME\s+DESCRIPTION$/);
  });

  it('create -f makes roles, users and locks that a running server sees through its watch', async () => {
    const at = await file('r.yaml', resources);
    const lines = await run((ctx, print) => createFromFile(ctx, at, {}, print));
    expect(lines[0]).toBe('role ops has been created');
    expect(lines[1]).toBe('user olga has been created');
    expect(lines[2]).toMatch(/^lock [0-9a-f-]{36} has been created$/);
    expect(JSON.parse((await state.server.get('/users/olga'))!.value).spec.roles).toEqual(['ops']);
    await vi.waitFor(
      () => expect(state.serverLocks.lockFor({ user: 'x', roles: ['ops'] })).toBeDefined(),
      {
        timeout: 1000,
      },
    );
    const audit = new SqliteAuditStore(path.join(state.dir, 'audit.db'), 'c');
    try {
      const { events } = await audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 1e7),
        limit: 50,
      });
      expect(events.map((event) => event.code).sort()).toEqual(['T1002I', 'T9000I', 'TLK00I']);
      expect(events.every((event) => String(event.user).startsWith('cli:'))).toBe(true);
    } finally {
      await audit.close();
    }
  });

  it('refuses an existing role or user unless --force, which overwrites it', async () => {
    const at = await file('ops.yaml', resources.split('---')[0]!.replace('[ops]', '[ops, deploy]'));
    expect(await failure((ctx, print) => createFromFile(ctx, at, {}, print))).toBe(
      `${at}, role at line 1: role ops already exists`,
    );
    const lines = await run((ctx, print) => createFromFile(ctx, at, { force: true }, print));
    expect(lines).toEqual(['role ops has been overwritten']);
    expect(JSON.parse((await state.server.get('/roles/ops'))!.value).spec.allow.logins).toEqual([
      'ops',
      'deploy',
    ]);
  });

  it('names the file and the line of a bad document', async () => {
    const at = await file(
      'bad.yaml',
      `${resources.split('---')[0]}---\nkind: role\nversion: v7\nmetadata: {name: x}\nspec:\n  allow:\n    logins: 7\n`,
    );
    expect(await failure((ctx, print) => createFromFile(ctx, at, { force: true }, print))).toBe(
      `${at}: line 15: spec.allow.logins: expected a list, got 7`,
    );
    const unknown = await file('unknown.yaml', 'kind: widget\n');
    expect(await failure((ctx, print) => createFromFile(ctx, unknown, {}, print))).toMatch(
      /unsupported kind 'widget'/,
    );
  });

  it('get users and locks print tables; an unknown name or kind is refused', async () => {
    const users = await run((ctx, print) => getResources(ctx, 'users', undefined, {}, print));
    expect(users).toEqual([
      expect.stringMatching(/^NAME\s+ROLES\s+LOGINS$/),
      expect.stringMatching(/^olga\s+ops\s+olga$/),
    ]);
    const locks = await run((ctx, print) => getResources(ctx, 'locks', undefined, {}, print));
    expect(locks[1]).toMatch(/^[0-9a-f-]{36}\s+role ops\s+change freeze\s+never\s+cli:\S+$/);
    const yaml = await run((ctx, print) =>
      getResources(ctx, 'users', 'olga', { format: 'yaml' }, print),
    );
    expect(parse(yaml.join('\n'))).toEqual({
      kind: 'user',
      version: 'v2',
      metadata: { name: 'olga' },
      spec: { roles: ['ops'], traits: { logins: ['olga'] } },
    });
    expect(await failure((ctx, print) => getResources(ctx, 'roles', 'ghost', {}, print))).toBe(
      'role ghost not found',
    );
    expect(
      await failure((ctx, print) => getResources(ctx, 'widgets', undefined, {}, print)),
    ).toMatch(/unknown kind/);
  });

  it('users update and rm; rm role/NAME once nobody holds it', async () => {
    await run((ctx, print) =>
      usersUpdate(ctx, 'olga', { setRoles: 'access', setLogins: 'o1,o2' }, print),
    );
    expect(JSON.parse((await state.server.get('/users/olga'))!.value).spec).toMatchObject({
      roles: ['access'],
      traits: { logins: ['o1', 'o2'] },
    });
    expect(
      await failure((ctx, print) => usersUpdate(ctx, 'olga', { setRoles: 'nope' }, print)),
    ).toBe('unknown role: nope: create them first');
    expect(await failure((ctx, print) => usersUpdate(ctx, 'olga', {}, print))).toMatch(
      /nothing to change/,
    );
    await run((ctx, print) => usersRemove(ctx, 'olga', print));
    expect(await state.server.get('/users/olga')).toBeNull();
    expect(await run((ctx, print) => removeResource(ctx, 'role/ops', print))).toEqual([
      'role ops has been deleted',
    ]);
    expect(await failure((ctx, print) => removeResource(ctx, 'role/access', print))).toMatch(
      /preset role/,
    );
    expect(await failure((ctx, print) => removeResource(ctx, 'ops', print))).toMatch(
      /is not KIND\/NAME/,
    );
    expect(await failure((ctx, print) => removeResource(ctx, 'user/ghost', print))).toBe(
      'user ghost not found',
    );
  });
});
