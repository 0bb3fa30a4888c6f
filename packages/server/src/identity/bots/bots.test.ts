import { apiPaths, sshCertsResponseSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';
import {
  POSTERN_BOT_GENERATION_EXTENSION,
  POSTERN_BOT_INSTANCE_EXTENSION,
  POSTERN_ROLES_EXTENSION,
} from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { signRequest } from '../../ssh/signed-request.js';
import type { BotsService } from './bots.service.js';
import { botsOf } from '../../testing/bots.testkit.js';
import { auditEventsOf } from '../../testing/audit-events.testkit.js';

// A bot joins once with a single-use token, then renews with the certificate it holds; each
// renewal must present the latest certificate, or the bot is locked (a copy is in use).

let app: TestApp;
let bots: BotsService;
type Key = ReturnType<typeof generateEd25519Key>;

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  bots = botsOf(app);
});
afterAll(() => app?.close());

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.server.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

async function join(token: string, key: Key = generateEd25519Key()) {
  const res = await post(apiPaths.botJoin, { token, pub_key: key.publicKey });
  return { res, key };
}

/** A renewal signed with `held` (a certificate and its key), for a new key. */
async function renew(held: { cert: string; key: Key }, next = generateEd25519Key()) {
  const body = { pub_key: next.publicKey };
  const headers = signRequest({
    method: 'POST',
    pathAndQuery: apiPaths.botRenew,
    certificateLine: held.cert,
    privateKeyPem: held.key.privateKeyPem,
    now: app.clock.now(),
    body: JSON.stringify(body),
  });
  return { res: await post(apiPaths.botRenew, body, headers), key: next };
}

const certOf = (res: { json(): unknown }) => sshCertsResponseSchema.parse(res.json()).cert;

describe('bots', () => {
  it('join with their token once: a certificate for bot-<name> with its roles and generation 1', async () => {
    const { bot, token } = await bots.create(
      { name: 'ci', roles: ['ops'], logins: ['deploy'] },
      'admin',
    );
    expect(bot).toMatchObject({ name: 'ci', user: 'bot-ci', roles: ['ops'], logins: ['deploy'] });
    const { res } = await join(token!.token);
    expect(res.statusCode, res.body).toBe(200);
    const cert = parseCertificate(certOf(res));
    expect(cert.keyId).toBe('bot-ci');
    expect(cert.principals).toContain('deploy');
    expect(cert.extensions[POSTERN_ROLES_EXTENSION]).toBe('ops');
    expect(cert.extensions[POSTERN_BOT_GENERATION_EXTENSION]).toBe('1');
    // An hour by default.
    expect(cert.validBefore.getTime() - app.clock.now()).toBeGreaterThan(59 * 60_000);
    expect(cert.validBefore.getTime() - app.clock.now()).toBeLessThanOrEqual(3600_000);
    const instanceId = cert.extensions[POSTERN_BOT_INSTANCE_EXTENSION];
    expect((await bots.get('ci')).instances).toEqual([
      expect.objectContaining({ id: instanceId, generation: 1 }),
    ]);
    expect(await auditEventsOf(app, 'TJ001I')).toContainEqual(
      expect.objectContaining({ bot_name: 'ci', method: 'token', bot_instance_id: instanceId }),
    );

    const again = await join(token!.token);
    expect(again.res.statusCode).toBe(403);
    expect(again.res.json().error.message).toMatch(/join token is not valid/);
  });

  it('refuse an unknown token with the same answer, and audit the failure', async () => {
    const { res } = await join('0'.repeat(32));
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/join token is not valid/);
    expect((await auditEventsOf(app, 'TJ001E')).length).toBeGreaterThan(0);
    const bad = await post(apiPaths.botJoin, { token: 'x', pub_key: 'ssh-rsa AAAA' });
    expect(bad.statusCode).toBe(400);
  });

  it('renew with the latest certificate: the next generation, for the new key', async () => {
    const { token } = await bots.create({ name: 'deployer', roles: ['ops'] }, 'admin');
    const joined = await join(token!.token);
    const first = { cert: certOf(joined.res), key: joined.key };
    const renewed = await renew(first);
    expect(renewed.res.statusCode, renewed.res.body).toBe(200);
    const second = parseCertificate(certOf(renewed.res));
    expect(second.keyId).toBe('bot-deployer');
    expect(second.extensions[POSTERN_BOT_GENERATION_EXTENSION]).toBe('2');
    expect(second.publicKeyBlob.equals(parseCertificate(first.cert).publicKeyBlob)).toBe(false);
    const third = await renew({ cert: certOf(renewed.res), key: renewed.key });
    expect(third.res.statusCode).toBe(200);
    expect((await bots.get('deployer')).instances[0]?.generation).toBe(3);
  });

  it('lock the bot when an old certificate renews: a copy of its identity is in use', async () => {
    const { token } = await bots.create({ name: 'copied', roles: ['ops'] }, 'admin');
    const joined = await join(token!.token);
    const original = { cert: certOf(joined.res), key: joined.key };
    const renewed = await renew(original);
    expect(renewed.res.statusCode).toBe(200);
    // The copy still holds generation 1 and renews too.
    const stolen = await renew(original);
    expect(stolen.res.statusCode).toBe(403);
    expect(stolen.res.json().error.message).toMatch(/bot copied is locked/);
    const [event] = await auditEventsOf(app, 'TCB001W');
    expect(event).toMatchObject({
      bot_name: 'copied',
      presented_generation: 1,
      expected_generation: 2,
    });
    // The lock holds for every copy, the latest one included.
    await expect
      .poll(
        async () => (await renew({ cert: certOf(renewed.res), key: renewed.key })).res.statusCode,
      )
      .toBe(403);
  });

  it('renew only bot certificates, signed: a person’s certificate and an unsigned call are refused', async () => {
    await app.services.users.create({ name: 'alice', roles: ['ops'] }, 'test');
    const key = generateEd25519Key();
    const cert = app.services.ca.issueUserCertificate({
      user: 'alice',
      roles: ['ops'],
      logins: [],
      publicKey: key.publicKey,
      ttlMs: 600_000,
      now: new Date(app.clock.now()),
    });
    const person = await renew({ cert, key });
    expect(person.res.statusCode).toBe(403);
    expect(person.res.json().error.message).toMatch(/only a bot's certificate renews here/);
    const unsigned = await post(apiPaths.botRenew, { pub_key: key.publicKey });
    expect(unsigned.statusCode).toBe(401);
  });

  it('keep bot certificates out of the assume call, which would renew without a generation', async () => {
    const { token } = await bots.create({ name: 'assumer', roles: ['ops'] }, 'admin');
    const joined = await join(token!.token);
    const body = JSON.stringify({ pub_key: joined.key.publicKey, request_ids: [] });
    const headers = signRequest({
      method: 'POST',
      pathAndQuery: apiPaths.sshCertsAssume,
      certificateLine: certOf(joined.res),
      privateKeyPem: joined.key.privateKeyPem,
      now: app.clock.now(),
      body,
    });
    const res = await app.server.inject({
      method: 'POST',
      url: apiPaths.sshCertsAssume,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/bots\/renew/);
  });

  it('stop working once removed: no renewal, and the token left unused is gone', async () => {
    const { token } = await bots.create({ name: 'gone', roles: ['ops'] }, 'admin');
    const spare = await bots.newToken('gone', undefined, 'admin');
    const joined = await join(token!.token);
    await bots.remove('gone', 'admin');
    await expect(bots.get('gone')).rejects.toThrow(/bot gone not found/);
    const renewed = await renew({ cert: certOf(joined.res), key: joined.key });
    expect(renewed.res.statusCode).toBe(401);
    expect((await join(spare.token)).res.statusCode).toBe(403);
    expect(await auditEventsOf(app, 'TB003I')).toContainEqual(
      expect.objectContaining({ bot_name: 'gone' }),
    );
  });

  it('have no password: invite and reset links are refused for their users', async () => {
    await bots.create({ name: 'nopass', roles: ['ops'] }, 'admin');
    await expect(
      app.services.tokens.create('bot-nopass', 'password', undefined, 'admin'),
    ).rejects.toThrow(/has no password/);
  });

  it('check their names and roles', async () => {
    await expect(bots.create({ name: 'Bad/Name', roles: ['ops'] }, 'admin')).rejects.toThrow(
      /bot name/,
    );
    await expect(bots.create({ name: 'noroles', roles: [] }, 'admin')).rejects.toThrow(
      /at least one role/,
    );
    await expect(bots.create({ name: 'unknown', roles: ['nope'] }, 'admin')).rejects.toThrow(
      /unknown role/,
    );
    await expect(bots.newToken('missing', undefined, 'admin')).rejects.toThrow(/not found/);
  });
});
