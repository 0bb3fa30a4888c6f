import { roleIssuesFromMessage, roleItemSchema } from '@postern/contracts';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.signIn(['editor'], 'root');
});
afterAll(() => app.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  app.server.inject({
    method,
    url: `/v1/webapi${url}`,
    headers: admin,
    payload: payload as object,
  });

const roleYaml = (name: string, logins: string[], extra = '') => `kind: role
version: v7
metadata:
  name: ${name}
  description: ${name} people${extra}
spec:
  allow:
    logins: [${logins.join(', ')}]
    node_labels:
      env: dev
`;

const auditCodes = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 })
  ).events.filter((event) => event.code === code);

describe('preset roles', () => {
  it('exist from the first start and are listed as resource items', async () => {
    const res = await call('GET', '/roles');
    expect(res.statusCode).toBe(200);
    const items = res.json().map((item: unknown) => roleItemSchema.parse(item));
    expect(items.map((item: { name: string }) => item.name)).toEqual([
      'access',
      'auditor',
      'editor',
    ]);
    expect(items[0]).toMatchObject({ id: 'role:access', kind: 'role' });
    expect(parse(items[0].content).metadata.revision).toMatch(/^\d+$/);
  });

  it('are seeded only when missing: an edited preset survives the next start', async () => {
    const { content } = (await call('GET', '/roles/auditor')).json();
    const edited = content.replace('Read the audit log', 'Audit things');
    expect((await call('PUT', '/roles/auditor', { content: edited })).statusCode).toBe(200);
    expect(await app.services.roles.seedPresets()).toEqual([]);
    expect((await call('GET', '/roles/auditor')).json().description).toBe(
      'Audit things, session recordings and active sessions',
    );
  });
});

describe('roles CRUD', () => {
  it('creates a role from YAML, returns it with its revision, and audits the actor', async () => {
    const res = await call('POST', '/roles', { content: roleYaml('dev', ['ubuntu']) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: 'role:dev', name: 'dev', description: 'dev people' });
    const got = await call('GET', '/roles/dev');
    expect(parse(got.json().content).spec.allow.logins).toEqual(['ubuntu']);
    expect(await auditCodes('T9000I')).toContainEqual(
      expect.objectContaining({ event: 'role.created', user: 'root', name: 'dev' }),
    );
  });

  it('answers 409 to POST on an existing name and 404 to PUT on a missing one', async () => {
    const again = await call('POST', '/roles', { content: roleYaml('dev', ['root']) });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual({
      code: 'already_exists',
      message: 'role dev already exists',
    });
    const missing = await call('PUT', '/roles/ghost', {
      content: roleYaml('ghost', ['x'], '\n  revision: "1"'),
    });
    expect(missing.statusCode).toBe(404);
    expect((await call('GET', '/roles/ghost')).statusCode).toBe(404);
  });

  it('gives the second of two concurrent editors a 409 and keeps the first one change', async () => {
    const first = (await call('GET', '/roles/dev')).json().content as string;
    const second = (await call('GET', '/roles/dev')).json().content as string;
    const saved = await call('PUT', '/roles/dev', { content: first.replace('ubuntu', 'alice') });
    expect(saved.statusCode, saved.body).toBe(200);
    const late = await call('PUT', '/roles/dev', { content: second.replace('ubuntu', 'bob') });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toEqual({
      code: 'compare_failed',
      message:
        'the role was changed by someone else since you opened it: reload and reapply your change',
    });
    const kept = parse((await call('GET', '/roles/dev')).json().content);
    expect(kept.spec.allow.logins).toEqual(['alice']);
    expect(await auditCodes('T9002I')).toContainEqual(
      expect.objectContaining({ event: 'role.updated', user: 'root', name: 'dev' }),
    );
  });

  it('refuses a PUT without the revision, or one that renames the role, at the line', async () => {
    const noRevision = await call('PUT', '/roles/dev', { content: roleYaml('dev', ['x']) });
    expect(noRevision.statusCode).toBe(400);
    expect(roleIssuesFromMessage(noRevision.json().error.message)).toEqual([
      expect.objectContaining({ line: 3, path: 'metadata.revision' }),
    ]);
    const renamed = await call('PUT', '/roles/dev', {
      content: roleYaml('other', ['x'], '\n  revision: "1"'),
    });
    expect(renamed.statusCode).toBe(400);
    expect(roleIssuesFromMessage(renamed.json().error.message)).toEqual([
      expect.objectContaining({ line: 4, path: 'metadata.name' }),
    ]);
  });

  it('reports validation errors with their line numbers', async () => {
    const content = roleYaml('bad', ['ok']).replace('node_labels', 'node_lables');
    const res = await call('POST', '/roles', { content: `${content}  deny:\n    logins: 7\n` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_parameter');
    expect(roleIssuesFromMessage(res.json().error.message)).toEqual([
      expect.objectContaining({ line: 9, path: 'spec.allow.node_lables' }),
      expect.objectContaining({ line: 12, path: 'spec.deny.logins' }),
    ]);
  });

  it('refuses to delete a role still assigned, naming holders, and a preset', async () => {
    await app.services.users.create({ name: 'dana', roles: ['dev'] }, 'test');
    const held = await call('DELETE', '/roles/dev');
    expect(held.statusCode).toBe(400);
    expect(held.json().error.message).toBe(
      'role dev is still assigned to dana: remove it from them first',
    );
    const preset = await call('DELETE', '/roles/access');
    expect(preset.statusCode).toBe(400);
    expect(preset.json().error.message).toMatch(/preset role and cannot be deleted/);
  });

  it('deletes a role nobody holds and audits it', async () => {
    await app.services.users.update({ name: 'dana', roles: ['access'] }, 'test');
    expect((await call('DELETE', '/roles/dev')).statusCode).toBe(200);
    expect((await call('GET', '/roles/dev')).statusCode).toBe(404);
    expect((await call('DELETE', '/roles/dev')).statusCode).toBe(404);
    expect(await auditCodes('T9001I')).toContainEqual(
      expect.objectContaining({ event: 'role.deleted', user: 'root', name: 'dev' }),
    );
  });
});

describe('roles RBAC', () => {
  it('lists only the roles a where clause lets the caller read, before counting', async () => {
    const content = `kind: role
version: v7
metadata:
  name: role-peeker
spec:
  allow:
    rules:
      - resources: [role]
        verbs: [list, read]
        where: equals(resource.metadata.name, "access")
`;
    expect((await call('POST', '/roles', { content })).statusCode).toBe(200);
    const headers = await app.signIn(['role-peeker'], 'pia');
    const list = await app.server.inject({ url: '/v1/webapi/roles', headers });
    expect(list.json().map((item: { name: string }) => item.name)).toEqual(['access']);
    const hidden = await app.server.inject({ url: '/v1/webapi/roles/editor', headers });
    expect(hidden.statusCode).toBe(404);
    const create = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/roles',
      headers,
      payload: { content: roleYaml('sneaky', ['root']) },
    });
    expect(create.statusCode).toBe(403);
  });

  it('applies an edited role to sessions already open', async () => {
    const headers = await app.signIn(['role-peeker'], 'pia');
    const users = () => app.server.inject({ url: '/v1/webapi/users', headers });
    expect((await users()).statusCode).toBe(403);
    const role = parse((await call('GET', '/roles/role-peeker')).json().content);
    role.spec.allow.rules[0].resources.push('user');
    delete role.spec.allow.rules[0].where;
    const widened = stringify(role);
    const saved = await call('PUT', '/roles/role-peeker', { content: widened });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await users()).statusCode).toBe(200);
  });
});
