import { apiPaths, sshCertsResponseSchema } from '@postern/contracts';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { startFakeCiTokenIssuer } from '../../testing/ci-token-issuer.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';
import { POSTERN_BOT_GENERATION_EXTENSION } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import type { BotsService } from './bots.service.js';
import { botsOf } from '../../testing/bots.testkit.js';

// CI jobs join as a bot with their OpenID Connect ID token, no secret in the job: the token must
// come from the bot's issuer, for its audience, with its claims, and is taken once.

let app: TestApp;
let bots: BotsService;
let ci: Awaited<ReturnType<typeof startFakeCiTokenIssuer>>;
const audience = 'postern.example.com';
const deployJob = {
  sub: 'repo:acme/deploy:ref:refs/heads/main',
  repository: 'acme/deploy',
  ref: 'refs/heads/main',
};

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  ci = await startFakeCiTokenIssuer();
  bots = botsOf(app);
  const created = await bots.create(
    {
      name: 'deploy',
      roles: ['ops'],
      oidc: {
        issuer: ci.issuer,
        audience,
        claims: { repository: 'acme/deploy', ref: 'refs/heads/main' },
      },
    },
    'admin',
  );
  // A bot that joins by ID token gets no token.
  expect(created.token).toBeUndefined();
});
afterAll(async () => {
  await app?.close();
  await ci?.close();
});

const join = (body: Record<string, unknown>) =>
  app.server.inject({
    method: 'POST',
    url: apiPaths.botJoin,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ pub_key: generateEd25519Key().publicKey, ...body }),
  });

describe('bots joining with a CI job’s ID token', () => {
  it('join when the token matches the rule: a bot certificate, and bot.join with the job’s subject', async () => {
    const idToken = await ci.mint(deployJob, { audience });
    const res = await join({ id_token: idToken, bot_name: 'deploy' });
    expect(res.statusCode, res.body).toBe(200);
    const cert = parseCertificate(sshCertsResponseSchema.parse(res.json()).cert);
    expect(cert.keyId).toBe('bot-deploy');
    expect(cert.extensions[POSTERN_BOT_GENERATION_EXTENSION]).toBe('1');
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 60_000),
      limit: 100,
      eventTypes: ['bot.join'],
    });
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'TJ001I', method: 'oidc', oidc_subject: deployJob.sub }),
    );
    // The same token again: whoever saw it on the way gets nothing.
    const replayed = await join({ id_token: idToken, bot_name: 'deploy' });
    expect(replayed.statusCode).toBe(403);
    expect(replayed.json().error.message).toMatch(/used already/);
  });

  it.each([
    [
      'another branch',
      () => ci.mint({ ...deployJob, ref: 'refs/heads/dev' }, { audience }),
      /claim ref does not match/,
    ],
    [
      'another repository',
      () => ci.mint({ ...deployJob, repository: 'evil/fork' }, { audience }),
      /claim repository/,
    ],
    ['another audience', () => ci.mint(deployJob, { audience: 'someone-else' }), /not valid.*aud/],
    [
      'an expired token',
      () => ci.mint(deployJob, { audience, expiresInSec: -600 }),
      /not valid.*exp/,
    ],
    [
      'a key the issuer does not publish',
      () => ci.mintWithOtherKey(deployJob, { audience }),
      /not valid/,
    ],
    [
      'another issuer',
      () => ci.mint(deployJob, { audience, issuer: 'https://ci.example.com' }),
      /not valid.*iss/,
    ],
  ])('refuse %s, naming the claim but not the rule’s values', async (_, mint, reason) => {
    const res = await join({ id_token: await mint(), bot_name: 'deploy' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(reason);
    expect(res.json().error.message).not.toContain('acme/deploy');
  });

  it('refuse a bot without a rule, and a body with both proofs or an ID token without a bot', async () => {
    await bots.create({ name: 'tokenonly', roles: ['ops'] }, 'admin');
    const idToken = await ci.mint(deployJob, { audience });
    const res = await join({ id_token: idToken, bot_name: 'tokenonly' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/no such bot joins with an ID token/);
    expect((await join({ id_token: idToken, token: 'abc', bot_name: 'deploy' })).statusCode).toBe(
      400,
    );
    expect((await join({ id_token: idToken })).statusCode).toBe(400);
  });

  it('follow the rule as updated: a changed claim takes effect at the next join, audited', async () => {
    await bots.create(
      {
        name: 'moving',
        roles: ['ops'],
        oidc: { issuer: ci.issuer, audience, claims: { ref: 'refs/heads/main' } },
      },
      'admin',
    );
    const onBranch = (ref: string) => ci.mint({ ...deployJob, ref }, { audience });
    expect(
      (await join({ id_token: await onBranch('refs/heads/main'), bot_name: 'moving' })).statusCode,
    ).toBe(200);
    await bots.update(
      'moving',
      { oidc: { issuer: ci.issuer, audience, claims: { ref: 'refs/heads/release' } } },
      'admin',
    );
    const main = await join({ id_token: await onBranch('refs/heads/main'), bot_name: 'moving' });
    expect(main.statusCode).toBe(403);
    expect(main.json().error.message).toMatch(/claim ref does not match/);
    expect(
      (await join({ id_token: await onBranch('refs/heads/release'), bot_name: 'moving' }))
        .statusCode,
    ).toBe(200);
    // Without the rule, ID tokens no longer let anyone in.
    await bots.update('moving', { oidc: null }, 'admin');
    const ruleless = await join({
      id_token: await onBranch('refs/heads/release'),
      bot_name: 'moving',
    });
    expect(ruleless.statusCode).toBe(403);
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(app.clock.now() + 60_000),
      limit: 100,
      eventTypes: ['bot.update'],
    });
    expect(events.map((event) => [event.code, event.bot_name, event.join_method])).toEqual([
      ['TB002I', 'moving', 'token'],
      ['TB002I', 'moving', 'oidc'],
    ]);
  });

  it('refuse a token when the issuer’s keys cannot be read, saying so', async () => {
    // A closed loopback port: the issuer's discovery document cannot be fetched.
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const issuer = `http://127.0.0.1:${closed}`;
    await bots.create(
      { name: 'gone', roles: ['ops'], oidc: { issuer, audience, claims: { ref: 'main' } } },
      'admin',
    );
    const res = await join({ id_token: await ci.mint(deployJob, { audience }), bot_name: 'gone' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(
      new RegExp(`the issuer's keys could not be read from ${issuer}`),
    );
  });

  it('check the rule when the bot is made: https issuer, an audience, one claim at least', async () => {
    const make = (oidc: { issuer: string; audience: string; claims: Record<string, string> }) =>
      bots.create({ name: 'ruled', roles: ['ops'], oidc }, 'admin');
    await expect(
      make({ issuer: 'http://ci.example.com', audience, claims: { a: 'b' } }),
    ).rejects.toThrow(/https/);
    await expect(make({ issuer: ci.issuer, audience: '', claims: { a: 'b' } })).rejects.toThrow(
      /audience/,
    );
    await expect(make({ issuer: ci.issuer, audience, claims: {} })).rejects.toThrow(/at least one/);
    expect(await app.services.users.store.get('bot-ruled')).toBeNull();
  });
});
