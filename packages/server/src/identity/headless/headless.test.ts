import { headlessLoginResponseSchema, headlessRequestViewSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, type TestUser } from '../../testing/identity.testkit.js';
import { createOpsRole, describeCertificate } from '../../testing/ssh-login.testkit.js';
import { POSTERN_MFA_DEVICE_EXTENSION } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { hostActor } from '../../access-control/access/actor.js';
import { headlessRequestTtlMs } from './headless.service.js';

let app: TestApp;
let alice: TestUser;
let bob: TestUser;
const key = generateEd25519Key();

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  alice = await inviteUser(app, 'alice', { roles: ['ops'], device: 'webauthn' });
  bob = await inviteUser(app, 'bob', { roles: ['ops'], device: 'webauthn' });
});
afterAll(() => app.close());

async function createRequest(user = 'alice'): Promise<string> {
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/webapi/headless/login',
    payload: { user, pub_key: key.publicKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  const body = headlessLoginResponseSchema.parse(res.json());
  expect(body.url).toBe(`https://proxy.test:3080/web/headless/${body.request_id}`);
  return body.request_id;
}

const view = (id: string, headers: Record<string, string>) =>
  app.server.inject({ url: `/v1/webapi/headless/${id}`, headers });

async function assertionFor(id: string, user: TestUser) {
  const res = await app.server.inject({
    method: 'POST',
    url: `/v1/webapi/headless/${id}/challenge`,
    headers: user.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return user.authenticator!.assert(res.json().webauthn_challenge.publicKey);
}

const answer = (id: string, user: TestUser, payload: Record<string, unknown>) =>
  app.server.inject({
    method: 'PUT',
    url: `/v1/webapi/headless/${id}`,
    headers: user.headers,
    payload,
  });

const wait = (id: string) => app.server.inject({ url: `/v1/webapi/headless/${id}/wait` });

const events = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 500 })
  ).events.filter((event) => event.code === code);

describe('headless login', () => {
  it('approved with a key, hands the CLI its certificate once', async () => {
    const id = await createRequest();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect((await wait(id)).json()).toEqual({ state: 'pending' });
    const shown = await view(id, alice.headers);
    expect(shown.statusCode).toBe(200);
    expect(headlessRequestViewSchema.parse(shown.json())).toMatchObject({
      client_ip_address: '127.0.0.1',
      user: 'alice',
      state: 'pending',
    });
    const approved = await answer(id, alice, {
      action: 'accept',
      webauthnAssertionResponse: await assertionFor(id, alice),
    });
    expect(approved.statusCode, approved.body).toBe(200);
    const collected = await wait(id);
    expect(collected.statusCode).toBe(200);
    expect(collected.json().state).toBe('approved');
    const description = await describeCertificate(collected.json().certificate.cert);
    expect(description).toContain('Key ID: "alice"');
    // The key that approved it is the certificate's device: an mfa_device lock on it reaches it.
    const { devices } = await app.services.users.store.credentials('alice');
    const key = devices.find((device) => device.type === 'webauthn')!;
    expect(
      parseCertificate(collected.json().certificate.cert).extensions[POSTERN_MFA_DEVICE_EXTENSION],
    ).toBe(key.id);
    expect((await wait(id)).statusCode).toBe(404);
    expect(await events('TPOS014I')).toContainEqual(
      expect.objectContaining({ user: 'alice', client_ip_address: '127.0.0.1' }),
    );
    expect(await events('TPOS015I')).toContainEqual(expect.objectContaining({ user: 'alice' }));
    expect(await events('TC000I')).toContainEqual(expect.objectContaining({ user: 'alice' }));
  });

  it('denied, tells the CLI so, and stays denied', async () => {
    const id = await createRequest();
    const denied = await answer(id, alice, { action: 'denied' });
    expect(denied.statusCode).toBe(200);
    expect((await wait(id)).json()).toEqual({ state: 'denied' });
    expect((await view(id, alice.headers)).json().state).toBe('denied');
    const late = await answer(id, alice, { action: 'denied' });
    expect(late.statusCode).toBe(409);
    expect(await events('TPOS015W')).toContainEqual(expect.objectContaining({ user: 'alice' }));
  });

  it('cannot be accepted without a key, or with an answer to another challenge', async () => {
    const id = await createRequest();
    const bare = await answer(id, alice, { action: 'accept' });
    expect(bare.statusCode).toBe(400);
    // A challenge issued for another request, or for a privilege token, does not approve this one.
    const other = await createRequest();
    const wrongRequest = await answer(id, alice, {
      action: 'accept',
      webauthnAssertionResponse: await assertionFor(other, alice),
    });
    expect(wrongRequest.statusCode).toBe(403);
    expect(wrongRequest.json().error.message).toMatch(/not issued for this request/);
    const privilege = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/mfa/authenticatechallenge',
      headers: alice.headers,
    });
    const forPrivilege = alice.authenticator!.assert(privilege.json().webauthn_challenge.publicKey);
    const wrongPurpose = await answer(id, alice, {
      action: 'accept',
      webauthnAssertionResponse: forPrivilege,
    });
    expect(wrongPurpose.statusCode).toBe(403);
    expect((await wait(id)).json()).toEqual({ state: 'pending' });
  });

  it("is 404 for another user's request and for unknown ids", async () => {
    const id = await createRequest('alice');
    expect((await view(id, bob.headers)).statusCode).toBe(404);
    const challenge = await app.server.inject({
      method: 'POST',
      url: `/v1/webapi/headless/${id}/challenge`,
      headers: bob.headers,
    });
    expect(challenge.statusCode).toBe(404);
    expect((await answer(id, bob, { action: 'denied' })).statusCode).toBe(404);
    expect((await view('0'.repeat(32), alice.headers)).statusCode).toBe(404);
    expect((await wait('not-an-id')).statusCode).toBe(404);
  });

  it('expires after three minutes with a clear message', async () => {
    const id = await createRequest();
    const assertion = await assertionFor(id, alice);
    app.clock.advance(headlessRequestTtlMs + 1000);
    const late = await answer(id, alice, {
      action: 'accept',
      webauthnAssertionResponse: assertion,
    });
    expect(late.statusCode).toBe(403);
    expect(late.json().error.message).toMatch(/expired/);
    const polled = await wait(id);
    expect(polled.statusCode).toBe(403);
    expect(polled.json().error.message).toMatch(/expired/);
  });

  it('is 401 without a session and 403 under a lock, for the browser calls', async () => {
    const id = await createRequest('bob');
    expect((await view(id, {})).statusCode).toBe(401);
    const put = await app.server.inject({
      method: 'PUT',
      url: `/v1/webapi/headless/${id}`,
      payload: { action: 'denied' },
    });
    expect(put.statusCode).toBe(401);
    const challenge = await app.server.inject({
      method: 'POST',
      url: `/v1/webapi/headless/${id}/challenge`,
    });
    expect(challenge.statusCode).toBe(401);
    await app.services.locks.create({ targets: { user: 'bob' } }, hostActor('test'));
    await vi.waitFor(() => expect(app.services.lockWatcher.isLocked({ user: 'bob' })).toBe(true));
    expect((await view(id, bob.headers)).statusCode).toBe(403);
    expect((await answer(id, bob, { action: 'denied' })).statusCode).toBe(403);
  });

  it('issues nothing for a user removed after approving', async () => {
    const carl = await inviteUser(app, 'carl', { roles: ['ops'], device: 'webauthn' });
    const id = await createRequest('carl');
    const approved = await answer(id, carl, {
      action: 'accept',
      webauthnAssertionResponse: await assertionFor(id, carl),
    });
    expect(approved.statusCode).toBe(200);
    await app.services.users.remove('carl', 'test');
    const polled = await wait(id);
    expect(polled.statusCode).toBe(403);
    expect(polled.json().error.message).toBe('this user no longer exists');
  });

  it('refuses a bad key with 400', async () => {
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/headless/login',
      payload: { user: 'alice', pub_key: 'ssh-rsa AAAA' },
    });
    expect(res.statusCode).toBe(400);
  });
});
