import { randomBytes } from 'node:crypto';
import { apiPaths, terminalMessageTypes as T } from '@postern/contracts';
import type { AuditEvent } from '../../../modules/audit/audit.types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { TestSchemas, testPostgresUrl } from '../../../backend/testing/postgres.testkit.js';
import { clusterSecret } from '../../../cluster-secrets.js';
import { peerProofHeaders } from '../../../modules/sessions/peer-proof.js';
import { peerResumePath } from '../../../modules/terminal/peer-resume.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { until } from '../../../testing/two-proxies.testkit.js';
import { upgradeStatus } from '../../../testing/ws-upgrade.testkit.js';

// Two proxies on one PostgreSQL schema: proxy B holds alice's shell on a real sshd. Her
// connection drops, and the balancer sends her client's resume to proxy A, which relays it to
// B over the internal, proven proxy-to-proxy route (docs/protocol.md §6.1). Loopback only.
const schemas = new TestSchemas();
let holder: SshNodeApp; // proxy B
let b: TestApp;
let a: TestApp; // proxy A
let aUrl: string;

beforeAll(async () => {
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  holder = await startSshNodeApp({ storage, audit: storage });
  b = holder.app;
  a = await createTestApp({ storage, audit: storage });
  aUrl = (await a.listenOnLoopback()).baseUrl;
  a.context.hub.advertise(aUrl);
  await b.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'plain-r' },
      spec: { allow: { node_labels: { env: 'test' }, logins: ['root'] } },
    }),
    hostActor('test'),
  );
  await until(() => a.context.access.roles.get('plain-r') !== undefined, 'proxy A to see the role');
}, 60_000);

afterAll(async () => {
  await a?.close();
  await holder?.close();
  await schemas.dropAll();
});

const term = { w: 80, h: 24 };

async function shellOnB() {
  const owner = await openTerminal({
    baseUrl: holder.baseUrl,
    headers: await b.signIn(['plain-r'], 'alice'),
    params: { server_id: holder.nodeId, login: 'root', term },
  });
  await owner.waitForOutput(/[#$] $/m);
  const frame = owner.frames.find((f) => f.type === T.sessionData)!;
  const sid = (JSON.parse(frame.payload) as { session: { id: string } }).session.id;
  await until(() => a.context.hub.tracker(sid)?.proxyAddr === holder.baseUrl, 'the tracker on A');
  return { owner, sid, key: owner.resumeKey()! };
}

async function resume(baseUrl: string, app: TestApp, user: string, request: object) {
  return openTerminal({
    baseUrl,
    headers: await app.signIn(['plain-r'], user),
    params: { server_id: holder.nodeId, login: 'root', term },
    resume: request as { sid: string; key: string; received: number },
  });
}

describe('resuming a session another proxy holds', () => {
  it('relays the owner through the proxy the balancer picked to the one holding it', async () => {
    const { owner, sid, key } = await shellOnB();
    const command = 'sleep 1; echo "rel""ayed"\r';
    owner.type(command);
    owner.socket.terminate(); // the network drops
    await owner.closed;

    // Someone else with the key learns nothing, not even that B holds such a session.
    const asDan = await resume(aUrl, a, 'dan', { ...key, received: 0 });
    expect(asDan.response).toMatchObject({
      status: 'error',
      message: 'the session cannot be resumed: no session to resume with this key',
    });

    const viaA = await resume(aUrl, a, 'alice', { ...key, received: owner.received() });
    expect(viaA.response).toMatchObject({ status: 'ok', input_received: command.length });
    await viaA.waitForOutput('relayed'); // printed while nobody was connected
    viaA.type('echo "through-""a"\r');
    await viaA.waitForOutput('through-a');
    expect(b.context.hub.get(sid)?.isEnded).toBe(false);
    expect(a.context.hub.get(sid)).toBeUndefined(); // B still holds it; A only relays

    // The relayed leg drops too: B keeps the session again, and the client may reach B itself.
    const next = viaA.resumeKey()!;
    expect(next.key).not.toBe(key.key);
    viaA.socket.terminate();
    await viaA.closed;
    // Offsets count from the session's start: what the first socket got, then the second.
    const received = owner.received() + viaA.received();
    const onB = await resume(holder.baseUrl, b, 'alice', { ...next, received });
    expect(onB.response.status).toBe('ok');
    onB.type('echo "back-on-""b"\r');
    await onB.waitForOutput('back-on-b');
    onB.close();
    await until(() => b.context.hub.get(sid) === undefined, 'the session to end');
  }, 30_000);

  it('ends a relayed resume like any other when the client closes', async () => {
    const { owner, sid, key } = await shellOnB();
    owner.socket.terminate();
    await owner.closed;
    const viaA = await resume(aUrl, a, 'alice', { ...key, received: owner.received() });
    expect(viaA.response.status).toBe('ok');
    viaA.close(); // 1000: the user closed the tab
    await until(() => b.context.hub.get(sid) === undefined, 'the session to end');
  }, 30_000);

  it('gives the session up on the holder when the tab closes while resuming (leave through A)', async () => {
    const { owner, sid, key } = await shellOnB();
    owner.socket.terminate();
    await owner.closed;
    const leave = async (user: string, body: object) =>
      a.server.inject({
        method: 'POST',
        url: apiPaths.terminalLeave(sid),
        headers: await a.signIn(['plain-r'], user),
        payload: body,
      });
    const asDan = await leave('dan', { key: key.key });
    expect(asDan.statusCode).toBe(404);
    expect(asDan.json().error.message).toBe(
      'the session cannot be left: no session to resume with this key',
    );
    const wrongKey = await leave('alice', { key: 'x'.repeat(43) });
    expect(wrongKey.statusCode).toBe(404);
    expect(wrongKey.json().error.message).toBe(
      'the session cannot be left: no session to resume with this key',
    );
    expect(b.context.hub.get(sid)?.isEnded).toBe(false);

    expect((await leave('alice', { key: key.key })).statusCode).toBe(200);
    await until(() => b.context.hub.get(sid) === undefined, 'the session to end on B');
    // Written in the background: wait for it rather than race it.
    let leftEvent: AuditEvent | undefined;
    for (let tries = 0; !leftEvent && tries < 100; tries += 1) {
      leftEvent = (await auditEventsOf(b, 'T2003I')).find((e) => e.sid === sid);
      if (!leftEvent) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(leftEvent).toMatchObject({
      user: 'alice',
      reason: 'its tab was closed while the connection was lost',
    });
  }, 30_000);

  it("refuses the holder's route without a proof, or with a join's or another session's", async () => {
    const { owner, sid } = await shellOnB();
    const secret = await clusterSecret(b.backend, 'proxy-peer');
    const claim = (over: object = {}) => ({
      to: b.context.hub.proxyId,
      sid,
      user: 'alice',
      ts: Date.now(),
      nonce: randomBytes(16).toString('base64url'),
      ...over,
    });
    expect(await upgrade(sid, {})).toBe(403);
    expect(await upgrade(sid, peerProofHeaders(secret, claim(), 'join'))).toBe(403);
    expect(await upgrade(sid, peerProofHeaders(secret, claim({ sid: 'other' }), 'resume'))).toBe(
      403,
    );
    expect(await upgrade(sid, peerProofHeaders(secret, claim(), 'resume'))).toBe('open');
    owner.close();
  }, 30_000);
});

/** Opens B's internal resume route with these headers: 'open', or the refusal's HTTP status. */
async function upgrade(sid: string, headers: Record<string, string>): Promise<'open' | number> {
  const url = new URL(peerResumePath(sid), holder.baseUrl.replace(/^http/, 'ws'));
  return (await upgradeStatus(url.toString(), headers)).status;
}
