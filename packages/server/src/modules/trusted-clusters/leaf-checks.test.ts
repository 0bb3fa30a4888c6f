import { generateKeyPairSync } from 'node:crypto';
import type { SessionMfaResponse } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { LeafChecks } from './leaf-checks.js';
import { signForwardedIdentity, signRootAssertion } from './forwarded-identity.js';

/**
 * The leaf's half of a root user's per-session MFA check in the console: only the root's signed
 * word for this challenge's nonce, for this user, once, passes. The stores are plain maps here:
 * the terminal through both clusters is in forwarding.test.ts.
 */
const rootKey = generateKeyPairSync('ed25519');
const otherKey = generateKeyPairSync('ed25519');
const rootKeyPem = rootKey.publicKey.export({ type: 'spki', format: 'pem' }).toString();

function leafChecks(options: { claimWord?: (id: string) => Promise<boolean> } = {}) {
  const users = new Map([
    ['ruth', { kind: 'trusted_cluster', name: 'root' }],
    ['local', undefined],
  ]);
  return new LeafChecks({
    users: {
      get: async (name: string) =>
        users.has(name)
          ? ({ user: { spec: { connector: users.get(name) } }, revision: '1' } as never)
          : null,
    },
    trusted: {
      get: async (name: string) =>
        name === 'root'
          ? ({ spec: { enabled: true }, trust: { identityKey: rootKeyPem } } as never)
          : null,
    },
    clusterName: 'leaf',
    now: () => Date.now(),
    ...options,
  });
}

const assertion = (nonce: string, options: { user?: string; key?: typeof rootKey } = {}) =>
  signRootAssertion(
    { user: options.user ?? 'ruth', check: nonce },
    { key: (options.key ?? rootKey).privateKey, root: 'root', leaf: 'leaf' },
  );

async function challenged(checks: LeafChecks, subject = 'terminal 1') {
  const challenge = await checks.challenge('ruth', subject);
  expect(challenge).toMatchObject({ totp_challenge: false, root_check: expect.any(String) });
  return challenge!.root_check!;
}

describe("a trusted root's user's check on the leaf", () => {
  it("is the root's for its users only: a local user gets no nonce", async () => {
    expect(await leafChecks().challenge('local', 'terminal 1')).toBeUndefined();
    expect(await leafChecks().verify('local', 'terminal 1', { totp_code: '123456' })).toBe(false);
  });

  it("passes with the root's assertion for the nonce, once", async () => {
    const checks = leafChecks();
    const nonce = await challenged(checks);
    const word = await assertion(nonce);
    expect(await checks.verify('ruth', 'terminal 1', { root_assertion: word })).toBe(true);
    // Taken once: the same word again finds no check waiting, and is no word for the socket.
    await expect(checks.verify('ruth', 'terminal 1', { root_assertion: word })).rejects.toThrow(
      'did not check out',
    );
  });

  it('refuses another nonce, another user, another key, an identity token and a code', async () => {
    const identityToken = () =>
      signForwardedIdentity(
        { user: 'ruth', roles: [], traits: {}, expires: new Date(Date.now() + 60_000) },
        { key: rootKey.privateKey, root: 'root', leaf: 'leaf' },
      );
    const refusals: [string, (nonce: string) => Promise<SessionMfaResponse>][] = [
      ['another nonce', async () => ({ root_assertion: await assertion('not-the-nonce') })],
      ['another user', async (n) => ({ root_assertion: await assertion(n, { user: 'eve' }) })],
      ['another key', async (n) => ({ root_assertion: await assertion(n, { key: otherKey }) })],
      ['an identity token', async () => ({ root_assertion: await identityToken() })],
      ['a code', async () => ({ totp_code: '123456' })],
    ];
    for (const [what, answerTo] of refusals) {
      const checks = leafChecks();
      const response = await answerTo(await challenged(checks));
      await expect(checks.verify('ruth', 'terminal 1', response), what).rejects.toThrow(
        /did not check out|is root's to run/,
      );
    }
  });

  it("an answer for one socket's challenge opens no other", async () => {
    const checks = leafChecks();
    const nonce = await challenged(checks, 'terminal 1');
    await challenged(checks, 'terminal 2');
    const word = await assertion(nonce);
    await expect(checks.verify('ruth', 'terminal 2', { root_assertion: word })).rejects.toThrow(
      'did not check out',
    );
  });

  it("takes the root's word for a console call's subject, for that user and subject only", async () => {
    const checks = leafChecks();
    const subject = 'web abc files:node-1';
    const word = await assertion(subject);
    expect(await checks.verify('ruth', subject, { root_assertion: word })).toBe(true);
    await expect(
      checks.verify('ruth', 'web abc files:node-2', { root_assertion: word }),
    ).rejects.toThrow('did not check out');
    // A local user's answer is never the root's to give.
    expect(await checks.verify('local', subject, { root_assertion: word })).toBe(false);
  });

  it("takes each of the root's words once: a copy replayed is refused", async () => {
    const checks = leafChecks();
    const subject = 'web abc db:orders';
    const word = await assertion(subject);
    expect(await checks.verify('ruth', subject, { root_assertion: word })).toBe(true);
    await expect(checks.verify('ruth', subject, { root_assertion: word })).rejects.toThrow(
      'already used',
    );
    // A fresh word for the same check is another word.
    expect(await checks.verify('ruth', subject, { root_assertion: await assertion(subject) })).toBe(
      true,
    );
  });

  it('claims words in storage when it has one: a second proxy of the leaf refuses the copy', async () => {
    const claimed = new Set<string>();
    const claimWord = async (id: string) => !claimed.has(id) && Boolean(claimed.add(id));
    const [first, second] = [leafChecks({ claimWord }), leafChecks({ claimWord })];
    const subject = 'web abc app:wiki';
    const word = await assertion(subject);
    expect(await first.verify('ruth', subject, { root_assertion: word })).toBe(true);
    await expect(second.verify('ruth', subject, { root_assertion: word })).rejects.toThrow(
      'already used',
    );
  });
});
