import { lockedRequestHint, terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../access/actor.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { approvedRequest } from '../../testing/access-requests.testkit.js';
import {
  createTestApp,
  type SignedInHeaders,
  type TestApp,
} from '../../testing/app-harness.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { openTerminal } from '../../testing/terminal-client.testkit.js';

// An `access_request` lock (the reference's target kind) locks every credential that assumed the
// request, as a whole: a web session that assumed it answers `locked` to every call and its
// terminals end, while the same user's other sessions go on. While the lock stands the request
// cannot be assumed again, by the console's renewal or for a certificate.

const admin = hostActor('test');
let app: TestApp;
let frank: SignedInHeaders;
let requestId: string;

const renew = (headers: SignedInHeaders, payload: object) =>
  app.server.inject({ method: 'POST', url: '/v1/webapi/sessions/web/renew', headers, payload });
const sites = (headers: SignedInHeaders) =>
  app.server.inject({ method: 'GET', url: '/v1/webapi/sites', headers });
const lockRequest = (message: string) =>
  app.services.locks.create({ targets: { access_request: requestId }, message }, admin);
async function unlockAll(): Promise<void> {
  for (const lock of await app.services.locks.list(admin)) {
    await app.services.locks.remove(lock.metadata.name, admin);
  }
}

/** frank's session with the request assumed, as the console's Assume makes it. */
async function assumed(): Promise<SignedInHeaders> {
  const res = await renew(frank, { requestId });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { cookie, authorization: `Bearer ${res.json().token}` };
}

beforeAll(async () => {
  app = await createTestApp();
  await createRole(app, 'ops', { allow: { node_labels: { '*': '*' }, logins: ['root'] } });
  // The request adds the preset auditor role.
  frank = await app.signIn(['ops'], 'frank');
  requestId = await approvedRequest(app, 'frank', ['auditor']);
});
afterAll(() => app.close());

describe('an access_request lock', () => {
  it('locks every call of a session that assumed the request, and only while in force', async () => {
    const withRequest = await assumed();
    expect((await sites(withRequest)).statusCode).toBe(200);
    await lockRequest('request under review');
    try {
      const refused = await sites(withRequest);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toBe(
        `locked: request under review (access request ${requestId} is locked: ${lockedRequestHint})`,
      );
      // The whole credential, not only what the request added: its renewal is refused too.
      expect((await renew(withRequest, {})).statusCode).toBe(403);
      // frank's session without the request, and another request of his, are not locked.
      expect((await sites(frank)).statusCode).toBe(200);
    } finally {
      await unlockAll();
    }
    expect((await sites(withRequest)).statusCode).toBe(200);
  });

  it('refuses assuming the request while locked: the console renewal and a certificate', async () => {
    await lockRequest('request under review');
    try {
      const refused = await renew(frank, { requestId });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toBe(
        `access request ${requestId} is locked: request under review`,
      );
      const issued = app.context.identity.issuer.issue({
        user: 'frank',
        roles: ['ops'],
        publicKey: generateEd25519Key().publicKey,
        requestedTtlMs: undefined,
        addr: undefined,
        assumed: { ids: [requestId], endsAt: app.clock.now() + 600_000 },
      });
      await expect(issued).rejects.toThrow(
        `access request ${requestId} is locked: request under review`,
      );
    } finally {
      await unlockAll();
    }
    expect((await renew(frank, { requestId })).statusCode).toBe(200);
  });

  it('ends a live terminal of the session that assumed it; one of the same user goes on', async () => {
    const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
    try {
      const node = await app.services.inventory.addOpenSsh(
        { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
        admin,
      );
      const { baseUrl } = await app.listenOnLoopback();
      const params = { server_id: node.metadata.name, login: 'root', term: { w: 80, h: 24 } };
      const lockedShell = await openTerminal({ baseUrl, headers: await assumed(), params });
      const plainShell = await openTerminal({ baseUrl, headers: frank, params });
      await lockedShell.waitForOutput(/[#$] $/m);
      await plainShell.waitForOutput(/[#$] $/m);
      await lockRequest('request revoked by security');
      await lockedShell.closed;
      const end = lockedShell.frames.find((frame) => frame.type === T.sessionEnd)?.payload ?? '{}';
      expect(JSON.parse(end)).toEqual({
        reason: `locked: request revoked by security (access request ${requestId} is locked: ${lockedRequestHint})`,
      });
      plainShell.type('echo "still=$((40+2))"\r');
      await plainShell.waitForOutput(/still=42/);
      plainShell.close();
      await plainShell.closed;
    } finally {
      await unlockAll();
      await sshd.stop();
    }
  });
});
