import type { LabelSelector } from '@postern/contracts';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  type SignedInHeaders,
  type TestApp,
} from '../../testing/app-harness.testkit.js';
import { hostActor } from '../access/actor.js';
import { rolesPrefix } from './roles.store.js';

let app: TestApp;
let ed: SignedInHeaders;

/** A role manager: may edit roles and users, and reach dev servers as `ed`. */
const roleAdmin = {
  kind: 'role',
  version: 'v7',
  metadata: { name: 'role-admin' },
  spec: {
    options: { max_session_ttl: '8h' },
    allow: {
      logins: ['ed'],
      // Typed as any selector, so edits may set lists and other keys.
      node_labels: { env: 'dev' } as LabelSelector,
      rules: [
        { resources: ['role'], verbs: ['list', 'read', 'create', 'update'] },
        { resources: ['user'], verbs: ['list', 'read', 'update'] },
      ],
    },
    deny: { logins: ['root'] },
  },
};
const ops = {
  kind: 'role',
  version: 'v7',
  metadata: { name: 'ops' },
  spec: { allow: { logins: ['ubuntu'], node_labels: { env: 'prod' } } },
};

beforeAll(async () => {
  app = await createTestApp();
  for (const role of [roleAdmin, ops]) {
    await app.services.roles.create(JSON.stringify(role), hostActor('test'));
  }
  // `ghost` is assigned to ed but no longer exists: it grants nothing until created again.
  const ghost = { ...ops, metadata: { name: 'ghost' } };
  await app.services.roles.create(JSON.stringify(ghost), hostActor('test'));
  await app.services.users.create({ name: 'ed', roles: ['role-admin', 'ghost'] }, 'test');
  await app.backend.delete(`${rolesPrefix}ghost`);
  await app.services.users.create({ name: 'flo', roles: ['access'] }, 'test');
  ed = await app.signIn(['role-admin', 'ghost'], 'ed');
});
afterAll(() => app.close());

const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
  app.server.inject({ method, url: `/v1/webapi${url}`, headers: ed, payload });

type RoleDoc = typeof roleAdmin;
/** The role as the editor loaded it (with its revision), changed by `edit`. */
async function edited(name: string, edit: (role: RoleDoc) => void): Promise<string> {
  const loaded = await app.server.inject({ url: `/v1/webapi/roles/${name}`, headers: ed });
  expect(loaded.statusCode, loaded.body).toBe(200);
  const role = parse(loaded.json().content as string) as RoleDoc;
  edit(role);
  return stringify(role);
}

const refusedEvents = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 5000 })
  ).events.filter((event) => event.code === code);

describe('no self-escalation through roles', () => {
  it.each([
    ['a verb', (role: RoleDoc) => role.spec.allow.rules[0]!.verbs.push('delete'), /delete on role/],
    [
      'a login',
      (role: RoleDoc) => role.spec.allow.logins.push('admin'),
      /allow\.logins allows admin/,
    ],
    [
      'a node label',
      (role: RoleDoc) => (role.spec.allow.node_labels = { env: ['dev', 'prod'] }),
      /allow\.node_labels allows more labels/,
    ],
    [
      'a removed deny',
      (role: RoleDoc) => (role.spec.deny = {} as RoleDoc['spec']['deny']),
      /deny\.logins no longer denies root/,
    ],
    [
      'a longer max_session_ttl',
      (role: RoleDoc) => (role.spec.options.max_session_ttl = '30h'),
      /max_session_ttl is longer/,
    ],
  ])('refuses widening a role the editor holds: %s', async (_what, edit, reason) => {
    const res = await call('PUT', '/roles/role-admin', {
      content: await edited('role-admin', edit),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('access_denied');
    expect(res.json().error.message).toMatch(/^you cannot widen a role you hold: role-admin /);
    expect(res.json().error.message).toMatch(reason);
    expect(await refusedEvents('TPOS018W')).toContainEqual(
      expect.objectContaining({
        user: 'ed',
        name: 'role-admin',
        success: false,
        error: res.json().error.message,
      }),
    );
  });

  it('lets the editor narrow a role they hold', async () => {
    const content = await edited('role-admin', (role) => {
      role.spec.allow.node_labels = { env: 'dev', team: 'web' };
      role.spec.allow.rules[1]!.verbs = ['list', 'read', 'update'];
      role.spec.deny.logins.push('postgres');
      role.spec.options.max_session_ttl = '4h';
    });
    const res = await call('PUT', '/roles/role-admin', { content });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('lets the editor widen a role they do not hold, and create a new one', async () => {
    const content = await edited('ops', (role) => {
      (role.spec.allow as { logins: string[] }).logins.push('root');
      role.spec.allow.node_labels = {
        '*': '*',
      } as unknown as RoleDoc['spec']['allow']['node_labels'];
    });
    expect((await call('PUT', '/roles/ops', { content })).statusCode).toBe(200);
    const fresh = { ...ops, metadata: { name: 'fresh' } };
    expect((await call('POST', '/roles', { content: stringify(fresh) })).statusCode).toBe(200);
  });

  it('refuses creating a role the editor is assigned that grants anything', async () => {
    const ghost = { ...ops, metadata: { name: 'ghost' } };
    const res = await call('POST', '/roles', { content: stringify(ghost) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/^you cannot widen a role you hold: ghost /);
    expect(await refusedEvents('TPOS017W')).toContainEqual(
      expect.objectContaining({ user: 'ed', name: 'ghost', success: false }),
    );
  });
});

describe('no self-escalation through the user record', () => {
  it('refuses giving oneself a role or a trait, and allows it for another user', async () => {
    const self = await call('PUT', '/users', { name: 'ed', roles: ['role-admin', 'ghost', 'ops'] });
    expect(self.statusCode).toBe(403);
    expect(self.json().error).toEqual({
      code: 'access_denied',
      message:
        'you cannot give yourself access you do not hold: roles ops; ask another administrator',
    });
    const logins = await call('PUT', '/users', {
      name: 'ed',
      roles: ['role-admin', 'ghost'],
      traits: { logins: ['root'] },
    });
    expect(logins.statusCode).toBe(403);
    expect(logins.json().error.message).toMatch(/traits logins=root/);
    expect((await app.services.users.get('ed')).spec.roles).toEqual(['ghost', 'role-admin']);
    expect(await refusedEvents('TPOS019W')).toContainEqual(
      expect.objectContaining({ user: 'ed', name: 'ed', success: false }),
    );

    // Dropping a role of one's own narrows, and granting another user a role works as before.
    const other = await call('PUT', '/users', { name: 'flo', roles: ['access', 'ops'] });
    expect(other.statusCode, other.body).toBe(200);
  });
});

describe('a lone administrator', () => {
  it('may add a login to themselves when they could make a user with their roles anyway', async () => {
    // editor may create users and grant every preset role: an account of theirs could have it.
    await app.services.users.create({ name: 'lone', roles: ['editor', 'access'] }, 'test');
    const lone = await app.signIn(['editor', 'access'], 'lone');
    const res = await app.server.inject({
      method: 'PUT',
      url: '/v1/webapi/users',
      headers: lone,
      payload: { name: 'lone', roles: ['editor', 'access'], traits: { logins: ['deploy'] } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await app.services.users.get('lone')).spec.traits.logins).toEqual(['deploy']);
    // A role is still never self-given, even by them.
    const role = await app.server.inject({
      method: 'PUT',
      url: '/v1/webapi/users',
      headers: lone,
      payload: { name: 'lone', roles: ['editor', 'access', 'ops'] },
    });
    expect(role.statusCode).toBe(403);
  });
});

describe('a refused concurrent edit', () => {
  it('is audited like the accepted one: a stale revision of a role', async () => {
    const first = await edited(
      'ops',
      (role) => ((role.metadata as { description?: string }).description = 'first'),
    );
    const second = await edited(
      'ops',
      (role) => ((role.metadata as { description?: string }).description = 'second'),
    );
    expect((await call('PUT', '/roles/ops', { content: first })).statusCode).toBe(200);
    const stale = await call('PUT', '/roles/ops', { content: second });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe('compare_failed');
    expect(await refusedEvents('TPOS018W')).toContainEqual(
      expect.objectContaining({
        user: 'ed',
        name: 'ops',
        success: false,
        error: stale.json().error.message,
      }),
    );
  });
});
