import { lockJsonSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  inviteUser,
  loginWithTotp,
  sessionHeaders,
  type TestUser,
} from '../../testing/identity.testkit.js';
import type { LockResource } from './locks.store.js';

let app: TestApp;
let admin: Record<string, string>;
let lucy: TestUser;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.signIn(['editor'], 'root');
  lucy = await inviteUser(app, 'lucy', { roles: ['access', 'auditor'] });
});
afterAll(() => app.close());

const locksUrl = '/v1/webapi/sites/test-cluster/locks';
const createLock = (payload: unknown) =>
  app.server.inject({ method: 'PUT', url: locksUrl, headers: admin, payload: payload as object });
const deleteLock = (name: string) =>
  app.server.inject({ method: 'DELETE', url: `${locksUrl}/${name}`, headers: admin });
const sitesAs = (headers: Record<string, string>) =>
  app.server.inject({ url: '/v1/webapi/sites', headers });

describe('locks API', () => {
  it('creates, lists and deletes a lock, and audits both with the actor', async () => {
    const created = await createLock({ targets: { login: 'root' }, message: 'no root', ttl: '2h' });
    expect(created.statusCode, created.body).toBe(200);
    const lock = lockJsonSchema.parse(created.json());
    expect(lock).toMatchObject({
      message: 'no root',
      createdBy: 'root',
      targets: [{ kind: 'login', name: 'root' }],
    });
    expect(Date.parse(lock.expires) - Date.parse(lock.createdAt)).toBe(2 * 3600_000);
    const listed = await app.server.inject({ url: locksUrl, headers: admin });
    expect(listed.json()).toEqual([lock]);
    expect((await deleteLock(lock.name)).statusCode).toBe(200);
    expect((await deleteLock(lock.name)).statusCode).toBe(404);
    expect((await app.server.inject({ url: locksUrl, headers: admin })).json()).toEqual([]);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 864e5),
      limit: 100,
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        code: 'TLK00I',
        event: 'lock.created',
        user: 'root',
        name: lock.name,
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        code: 'TLK01I',
        event: 'lock.deleted',
        user: 'root',
        name: lock.name,
      }),
    );
  });

  it('refuses bodies without exactly one target, with two ends, or a bad duration', async () => {
    const bodies = [
      { targets: {}, message: 'x' },
      { targets: { user: 'a', role: 'b' } },
      { targets: { user: 'a' }, ttl: '1h', expires: '2099-01-01T00:00:00Z' },
      { targets: { user: 'a' }, ttl: 'soon' },
      { targets: { user: 'a' }, expires: '2001-01-01T00:00:00Z' },
      { targets: { cluster: 'a' } },
    ];
    for (const body of bodies) {
      const res = await createLock(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
    }
  });

  it('refuses kinds Postern cannot enforce yet, naming the kinds it can', async () => {
    const res = await createLock({ targets: { device: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_parameter');
    expect(res.json().error.message).toContain(
      'user, role, login, node, windows_desktop, mfa_device, access_request',
    );
  });

  it('takes an MFA device and an access request by their ids only: a name is no UUID', async () => {
    const device = await createLock({ targets: { mfa_device: 'phone' } });
    expect(device.statusCode).toBe(400);
    expect(device.json().error.message).toContain('an MFA device is named by its id (a UUID)');
    const request = await createLock({ targets: { access_request: 'the-deploy-one' } });
    expect(request.statusCode).toBe(400);
    expect(request.json().error.message).toContain('an access request is named by its id (a UUID)');
  });
});

describe('lock enforcement', () => {
  it('stops a locked user at once: API calls, renewal and sign-in, with the message', async () => {
    expect((await sitesAs(lucy.headers)).statusCode).toBe(200);
    const { name } = (
      await createLock({ targets: { user: 'lucy' }, message: 'under review' })
    ).json();
    const call = await sitesAs(lucy.headers);
    expect(call.statusCode).toBe(403);
    expect(call.json().error).toEqual({ code: 'access_denied', message: 'locked: under review' });
    const renew = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web/renew',
      headers: lucy.headers,
    });
    expect(renew.statusCode).toBe(403);
    const login = await loginWithTotp(app, lucy);
    expect(login.statusCode).toBe(403);
    expect(login.json().error.message).toBe('your account is locked: under review');

    await deleteLock(name);
    expect((await sitesAs(lucy.headers)).statusCode).toBe(200);
    expect((await loginWithTotp(app, lucy)).statusCode).toBe(200);
  });

  it('loads the console signed out for a locked user, and lets them sign out', async () => {
    const bearerMeta = async () => {
      const page = await app.server.inject({
        url: '/web',
        headers: { cookie: lucy.headers.cookie! },
      });
      return /name="grv_bearer_token" content="([^"]*)"/.exec(page.body)?.[1];
    };
    expect(await bearerMeta()).not.toBe('');
    const { name } = (await createLock({ targets: { user: 'lucy' } })).json();
    expect(await bearerMeta()).toBe('');
    expect((await sitesAs(lucy.headers)).json().error.message).toBe(
      'locked: an administrator locked access',
    );
    const logout = await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: lucy.headers,
    });
    expect(logout.statusCode).toBe(200);
    await deleteLock(name);
  });

  it('locks everyone holding a locked role', async () => {
    const headers = sessionHeaders(app, await loginWithTotp(app, lucy));
    const { name } = (
      await createLock({ targets: { role: 'auditor' }, message: 'audit freeze' })
    ).json();
    expect((await sitesAs(headers)).json().error.message).toBe('locked: audit freeze');
    expect((await sitesAs(await app.signIn(['auditor'], 'other'))).statusCode).toBe(403);
    expect((await sitesAs(admin)).statusCode).toBe(200);
    await deleteLock(name);
    expect((await sitesAs(headers)).statusCode).toBe(200);
  });

  it('lifts a lock when it expires', async () => {
    const headers = await app.signIn(['access'], 'tim');
    await createLock({ targets: { user: 'tim' }, ttl: '1h' });
    expect((await sitesAs(headers)).statusCode).toBe(403);
    app.clock.advance(3600_000 + 1000);
    // Bearers live 10 minutes: the hour moved on every browser.
    admin = await app.signIn(['editor'], 'root');
    const fresh = await app.signIn(['access'], 'tim');
    expect((await sitesAs(fresh)).statusCode).toBe(200);
    expect((await app.server.inject({ url: locksUrl, headers: admin })).json()).toEqual([]);
  });

  it('offers isLocked and a lock event to other modules', async () => {
    const seen: LockResource[] = [];
    app.services.lockWatcher.on('lock', (lock) => seen.push(lock));
    await createLock({ targets: { node: 'db-1' }, message: 'patching' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.map((lock) => lock.spec.target)).toEqual([{ node: 'db-1' }]);
    expect(app.services.lockWatcher.isLocked({ user: 'x', node: 'db-1' })).toBe(true);
    expect(app.services.lockWatcher.isLocked({ user: 'x', node: 'db-2' })).toBe(false);
  });
});
