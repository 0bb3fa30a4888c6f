import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { signCertificate } from '../../../ssh/certificates.js';
import { generateEd25519Key } from '../../../ssh/keys.js';
import { signRequest } from '../../../ssh/signed-request.js';
import { createOpsRole } from '../../../testing/ssh-login.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';

let app: TestApp;
const admin = hostActor('test');
const key = generateEd25519Key();
const url = '/v1/webapi/ssh/nodes?limit=10';

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  await app.services.users.create({ name: 'alice', roles: ['ops'] }, 'test');
  await app.services.users.create({ name: 'nora', roles: ['auditor'] }, 'test');
  await app.services.inventory.addOpenSsh(
    { name: 'web-1', addr: '127.0.0.21:22', labels: {} },
    admin,
  );
});
afterAll(() => app.close());

const certificate = (user: string, ttlMs = 60_000, now = app.clock.now()) =>
  app.services.ca.issueUserCertificate({
    user,
    roles: [],
    logins: ['root'],
    publicKey: key.publicKey,
    ttlMs,
    now: new Date(now),
  });

const signed = (user: string, overrides: { path?: string; now?: number; cert?: string } = {}) =>
  signRequest({
    method: 'GET',
    pathAndQuery: overrides.path ?? url,
    certificateLine: overrides.cert ?? certificate(user),
    privateKeyPem: key.privateKeyPem,
    now: overrides.now ?? app.clock.now(),
  });

const list = (headers: Record<string, string>) => app.server.inject({ url, headers });

describe('GET ssh/nodes (signed with a user certificate)', () => {
  it("lists the nodes the certificate's user may see", async () => {
    const res = await list(signed('alice'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((node: { hostname: string }) => node.hostname)).toEqual(['web-1']);
  });

  it('is 401 unsigned, tampered, stale, expired, or from another CA', async () => {
    expect((await list({})).statusCode).toBe(401);
    expect(
      (await list(signed('alice', { path: '/v1/webapi/ssh/nodes?limit=99' }))).statusCode,
    ).toBe(401);
    expect((await list(signed('alice', { now: app.clock.now() - 10 * 60_000 }))).statusCode).toBe(
      401,
    );
    const old = certificate('alice', 60_000, app.clock.now() - 3_600_000);
    const expired = await list(signed('alice', { cert: old }));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.message).toMatch(/expired.*postern login/);
    const foreignCa = generateEd25519Key();
    const forged = signCertificate(foreignCa.privateKeyPem, {
      type: 'user',
      publicKey: key.publicKey,
      keyId: 'alice',
      principals: ['root'],
      validAfter: new Date(app.clock.now() - 60_000),
      validBefore: new Date(app.clock.now() + 60_000),
    });
    expect((await list(signed('alice', { cert: forged }))).statusCode).toBe(401);
    expect((await list(signed('removed-user'))).statusCode).toBe(401);
  });

  it('is 403 for a user without nodes.list, or under a lock', async () => {
    const auditor = await list(signed('nora'));
    expect(auditor.statusCode).toBe(403);
    await app.services.locks.create({ targets: { user: 'alice' }, message: 'paused' }, admin);
    await vi.waitFor(() => expect(app.services.lockWatcher.isLocked({ user: 'alice' })).toBe(true));
    const locked = await list(signed('alice'));
    expect(locked.statusCode).toBe(403);
    expect(locked.json().error.message).toBe('locked: paused');
  });
});
