import { internalResourceIdLabel } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseCertificate, verifyCertificate } from '../../../ssh/certificates.js';
import { generateEd25519Key } from '../../../ssh/keys.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import type { IssuedJoinToken } from '../../../modules/join-tokens/join-tokens.service.js';
import { waitForNode } from '../nodes/inventory.testkit.js';

let app: TestApp;
let token: IssuedJoinToken;

beforeAll(async () => {
  app = await createTestApp();
  token = await app.services.joinTokens.create(
    {
      roles: ['Node'],
      join_method: 'token',
      allow: [],
      suggested_agent_matcher_labels: { env: ['*', 'prod'], team: 'infra' },
    },
    hostActor('cli:test'),
  );
});
afterAll(() => app.close());

const join = (payload: object) =>
  app.server.inject({ method: 'POST', url: '/v1/agent/join', payload });

async function joinEvents() {
  const { events } = await app.audit.search({
    from: new Date(0),
    to: new Date(app.clock.now() + 864e5),
    limit: 1000,
  });
  return events.filter((event) => event.event === 'instance.join');
}

describe('POST /v1/agent/join', () => {
  it('registers an agentless host and certifies its key with the host CA', async () => {
    const { publicKey } = generateEd25519Key();
    const res = await join({
      token: token.token,
      hostname: 'db-7',
      hostPublicKey: `${publicKey} root@db-7`,
      addr: '127.0.2.7:22',
      subKind: 'openssh',
      os: 'linux',
      labels: { env: 'dev', rack: 'r1' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    const { ca } = app.services;
    expect(body).toMatchObject({
      clusterName: 'test-cluster',
      userCaKeys: [ca.trustedUserCaKeysLine()],
      hostCaKeys: [ca.knownHostsLine()],
    });
    const cert = parseCertificate(body.hostCertificate);
    const now = new Date();
    expect(
      verifyCertificate(cert, { caPublicKeys: [ca.hostCaPublicKey], type: 'host', now }),
    ).toEqual({ ok: true });
    expect(cert.principals).toEqual([body.nodeId, 'db-7', '127.0.2.7']);
    expect(cert.keyId).toBe(body.nodeId);
    expect(cert.validBefore.getTime() - now.getTime()).toBeGreaterThan(29 * 864e5);
    expect(cert.publicKeyBlob.toString('base64')).toBe(publicKey.split(' ')[1]);

    const node = await waitForNode(app.services.inventory, body.nodeId);
    expect(node.spec).toMatchObject({
      hostname: 'db-7',
      addr: '127.0.2.7:22',
      subKind: 'openssh',
      tunnel: false,
      hostPublicKey: publicKey,
      hostKeySource: 'certificate',
    });
    // The token's labels win over the host's own: an administrator chose them.
    expect(node.metadata.labels).toEqual({
      env: 'prod',
      rack: 'r1',
      team: 'infra',
      [internalResourceIdLabel]: token.resource.spec.internalResourceId,
    });
    expect(node.metadata.expires).toBeUndefined();
    // An agentless host is online once the proxy's check reaches 127.0.2.7:22; none runs here.
    expect(app.services.inventory.row(node).status).toBe('offline');

    const [joined] = (await joinEvents()).filter((event) => event.host_id === body.nodeId);
    expect(joined).toMatchObject({
      code: 'TJ002I',
      hostname: 'db-7',
      sub_kind: 'openssh',
      success: true,
    });
    expect(JSON.stringify(joined)).not.toContain(token.token);

    // The same host joining again keeps its id (the install script run twice).
    const again = await join({
      token: token.token,
      hostname: 'db-7',
      hostPublicKey: publicKey,
      addr: '127.0.2.70:22',
      subKind: 'openssh',
    });
    expect(again.json().nodeId).toBe(body.nodeId);
    await vi.waitFor(() =>
      expect(app.services.inventory.get(body.nodeId)!.spec.addr).toBe('127.0.2.70:22'),
    );
  });

  it('registers an agent as a tunnel node that goes offline without heartbeats', async () => {
    const { publicKey } = generateEd25519Key();
    const res = await join({
      token: token.token,
      hostname: 'edge-1',
      hostPublicKey: publicKey,
      addr: '127.0.1.5:3022',
      subKind: 'postern',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { nodeId, hostCertificate } = res.json();
    expect(parseCertificate(hostCertificate).principals).toEqual([nodeId, 'edge-1']);
    const node = await waitForNode(app.services.inventory, nodeId);
    expect(node.spec).toMatchObject({ tunnel: true, addr: '', subKind: 'postern' });
    expect(Date.parse(node.metadata.expires!)).toBeGreaterThan(app.clock.now());
    expect(app.services.inventory.row(node).status).toBe('offline');
  });

  it('lets an agent join with an App token (install-app.sh)', async () => {
    const appOnly = await app.services.joinTokens.create(
      { roles: ['App'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      hostActor('cli:test'),
    );
    const { publicKey } = generateEd25519Key();
    const res = await join({
      token: appOnly.token,
      hostname: 'apps-1',
      hostPublicKey: publicKey,
      subKind: 'postern',
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses a bad token with 403 and audits the failure without the token', async () => {
    const { publicKey } = generateEd25519Key();
    const attempt = { hostname: 'evil', hostPublicKey: publicKey, addr: '127.0.0.1:22' };
    const expired = await app.services.joinTokens.create(
      { roles: ['Node'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      hostActor('cli:test'),
      { ttlMs: 1000 },
    );
    const appOnly = await app.services.joinTokens.create(
      { roles: ['App'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      hostActor('cli:test'),
    );
    app.clock.advance(2000);
    const bad = ['f'.repeat(32), expired.token, appOnly.token];
    // An App token lets an agent join (to serve apps), never an agentless OpenSSH host.
    const subKinds = ['postern', 'postern', 'openssh'];
    for (const [i, guess] of bad.entries()) {
      const res = await join({ ...attempt, subKind: subKinds[i], token: guess });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toMatch(/join token is not valid/);
    }
    const failures = (await joinEvents()).filter((event) => event.code === 'TJ002E');
    expect(failures).toHaveLength(3);
    expect(failures[0]).toMatchObject({
      hostname: 'evil',
      reason: 'invalid join token',
      success: false,
    });
    for (const guess of bad) expect(JSON.stringify(failures)).not.toContain(guess);
  });

  it('refuses bad bodies with 400', async () => {
    const { publicKey } = generateEd25519Key();
    const good = {
      token: token.token,
      hostname: 'h',
      hostPublicKey: publicKey,
      subKind: 'openssh',
      addr: 'h:22',
    };
    const bodies = [
      { ...good, addr: undefined },
      { ...good, addr: 'no-port' },
      { ...good, hostname: 'two words' },
      { ...good, subKind: 'windows' },
      { ...good, labels: { 'bad label': 'x' } },
      { ...good, hostPublicKey: 'ssh-ed25519 AAAA' },
      { ...good, hostPublicKey: generateRsaLikeLine() },
    ];
    for (const body of bodies) {
      const res = await join(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
    }
  });
});

/** A well-formed key line of another type: only Ed25519 host keys are certified. */
function generateRsaLikeLine(): string {
  const type = 'ssh-rsa';
  const blob = Buffer.concat([
    Buffer.from([0, 0, 0, type.length]),
    Buffer.from(type),
    Buffer.from([0, 0, 0, 1, 1]),
  ]);
  return `${type} ${blob.toString('base64')}`;
}

describe('rate limits', () => {
  it('limit the join call and the install script per address, like sign-in', async () => {
    const limited = await createTestApp({ auth: { login_rate_limit: 2 } });
    try {
      for (const request of [
        { method: 'POST' as const, url: '/v1/agent/join', payload: {} },
        { method: 'GET' as const, url: `/scripts/${'0'.repeat(32)}/install-node.sh` },
      ]) {
        const codes: number[] = [];
        for (let i = 0; i < 3; i++) codes.push((await limited.server.inject(request)).statusCode);
        expect(codes, request.url).toEqual([codes[0], codes[0], 429]);
        expect(codes[0]).not.toBe(429);
      }
    } finally {
      await limited.close();
    }
  });
});
