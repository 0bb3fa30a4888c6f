import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { signedRequestHeaders, signRequest } from '../../ssh/signed-request.js';

// Requests the CLI signs with the user certificate from `postern login` (ssh/signed-request.ts):
// the signature covers the body's bytes, and each signature is taken once, so a request seen on
// the way (a balancer's or a debugging proxy's log) can be neither altered nor sent again.

let app: TestApp;
const key = generateEd25519Key();
const nodesUrl = '/v1/webapi/ssh/nodes?limit=10';

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  await app.services.users.create({ name: 'alice', roles: ['ops'] }, 'test');
});
afterAll(() => app?.close());

const certificateLine = () =>
  app.services.ca.issueUserCertificate({
    user: 'alice',
    roles: ['ops'],
    logins: ['root'],
    publicKey: key.publicKey,
    ttlMs: 60_000,
    now: new Date(app.clock.now()),
  });

const sign = (method: string, pathAndQuery: string, body?: string) =>
  signRequest({
    method,
    pathAndQuery,
    certificateLine: certificateLine(),
    privateKeyPem: key.privateKeyPem,
    now: app.clock.now(),
    ...(body === undefined ? {} : { body }),
  });

/** The signed-in user's own key, certified again without assumed requests (a signed POST). */
const assume = (headers: Record<string, string>, body: string) =>
  app.server.inject({
    method: 'POST',
    url: apiPaths.sshCertsAssume,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: body,
  });

const assumeBody = (ttl: number) =>
  JSON.stringify({ pub_key: key.publicKey, request_ids: [], ttl });

describe('certificate-signed requests', () => {
  it('take each signature once: the same request sent again is refused', async () => {
    const headers = sign('GET', nodesUrl);
    expect((await app.server.inject({ url: nodesUrl, headers })).statusCode).toBe(200);
    const replayed = await app.server.inject({ url: nodesUrl, headers });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().error.message).toMatch(/already used/);
    // A new signature for the same request is fine.
    expect(
      (await app.server.inject({ url: nodesUrl, headers: sign('GET', nodesUrl) })).statusCode,
    ).toBe(200);
  });

  it('cover the body: the signed one is taken, any other body is refused', async () => {
    const body = assumeBody(60_000);
    const taken = await assume(sign('POST', apiPaths.sshCertsAssume, body), body);
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json().cert).toMatch(/^ssh-ed25519-cert-v01@openssh.com /);
    const altered = await assume(
      sign('POST', apiPaths.sshCertsAssume, body),
      assumeBody(3_600_000),
    );
    expect(altered.statusCode).toBe(401);
    expect(altered.json().error.message).toMatch(/body is not the one that was signed/);
    // Signed as if it had no body, then sent with one.
    const bodiless = await assume(sign('POST', apiPaths.sshCertsAssume), body);
    expect(bodiless.statusCode).toBe(401);
  });

  it('refuse a request signed without the body digest (an older client), saying what to do', async () => {
    const headers = sign('GET', nodesUrl);
    delete headers[signedRequestHeaders.contentSha256];
    const old = await app.server.inject({ url: nodesUrl, headers });
    expect(old.statusCode).toBe(401);
    expect(old.json().error.message).toMatch(/update the postern client/);
  });

  it('refuse a request signed without a nonce, and one whose nonce was changed', async () => {
    const headers = sign('GET', nodesUrl);
    const nonce = headers[signedRequestHeaders.nonce]!;
    delete headers[signedRequestHeaders.nonce];
    const without = await app.server.inject({ url: nodesUrl, headers });
    expect(without.statusCode).toBe(401);
    expect(without.json().error.message).toMatch(/update the postern client/);
    const other = nonce.replace(/^./, (digit) => (digit === '0' ? '1' : '0'));
    const changed = await app.server.inject({
      url: nodesUrl,
      headers: { ...headers, [signedRequestHeaders.nonce]: other },
    });
    expect(changed.statusCode).toBe(401);
    expect(changed.json().error.message).toMatch(/signature is invalid/);
  });

  it('take the same request signed twice in the same millisecond as two requests', async () => {
    // What `postern proxy app` does for a burst of connections: one tunnel each, same path, no
    // body, often the same millisecond. Each signature must be its own.
    const now = app.clock.now();
    const signAt = () =>
      signRequest({
        method: 'GET',
        pathAndQuery: nodesUrl,
        certificateLine: certificateLine(),
        privateKeyPem: key.privateKeyPem,
        now,
      });
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => app.server.inject({ url: nodesUrl, headers: signAt() })),
    );
    expect(burst.map((response) => response.statusCode)).toEqual(Array(8).fill(200));
  });
});
