import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  startMailbox,
  startReceiver,
  type Mailbox,
  type Receiver,
} from '../../modules/integrations/receivers.testkit.js';

// Reviewers hear of a request where they are: a webhook receiver and a real SMTP server, both
// on loopback; a receiver that never answers holds nothing up.
let app: TestApp;
let hook: Receiver;
let hanging: Receiver;
let mailbox: Mailbox;
const base = '/v1/webapi/sites/test-cluster/accessrequests';

beforeAll(async () => {
  app = await createTestApp();
  [hook, hanging, mailbox] = await Promise.all([
    startReceiver(),
    startReceiver(() => 'hang'),
    startMailbox(),
  ]);
  const host = { name: 'test', roleSet: null };
  const role = (name: string, allow: object) =>
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } });
  await app.services.roles.create(
    role('asks-editor', { request: { roles: ['editor'], suggested_reviewers: ['bob'] } }),
    host,
  );
  await app.services.roles.create(
    role('reviews-editor', { review_requests: { roles: ['editor'] } }),
    host,
  );
  await app.services.users.create(
    { name: 'bob', roles: ['reviews-editor'], traits: { email: ['bob@example.test'] } },
    'test',
  );
  await app.services.users.create(
    { name: 'alice', roles: ['asks-editor'], traits: { email: ['alice@example.test'] } },
    'test',
  );
  const admin = await app.signIn(['editor'], 'root');
  const integrations = [
    {
      name: 'hook',
      type: 'webhook',
      settings: { url: hook.url, signingSecret: 'a-signing-secret-1234' },
    },
    {
      name: 'stuck',
      type: 'webhook',
      settings: { url: hanging.url, signingSecret: 'a-signing-secret-1234' },
    },
    {
      name: 'mail',
      type: 'email',
      settings: {
        host: '127.0.0.1',
        port: mailbox.port,
        security: 'none',
        from: 'postern@example.test',
      },
    },
  ];
  for (const payload of integrations) {
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sites/test-cluster/integrations',
      headers: admin,
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
}, 30_000);

afterAll(async () => {
  await Promise.all([hook?.close(), hanging?.close(), mailbox?.close()]);
  await app?.close();
});

async function eventually<T>(find: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = find();
    if (found) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never saw ${what}`);
}

describe('notifications of access requests', () => {
  it('tells the suggested reviewers of a new request, and the requester of the decision', async () => {
    const alice = await app.signIn(['asks-editor'], 'alice');
    const started = Date.now();
    const created = await app.server.inject({
      method: 'POST',
      url: base,
      headers: alice,
      payload: { roles: ['editor'], reason: 'rotate keys' },
    });
    // The hanging receiver is never waited for.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(created.statusCode).toBe(200);
    const { id } = created.json();
    const reviewUrl = `https://proxy.test:3080/web/requests/${id}`;

    const posted = await eventually(
      () => hook.received.map((r) => JSON.parse(r.body)).find((b) => b.request?.id === id),
      'the webhook call',
    );
    expect(posted).toMatchObject({
      event: 'created',
      reviewUrl,
      recipients: ['bob'],
      request: { user: 'alice', roles: ['editor'], reason: 'rotate keys', state: 'PENDING' },
    });
    const mail = await eventually(
      () => mailbox.messages.find((m) => m.raw.replace(/=\r?\n/g, '').includes(id)),
      'the e-mail to bob',
    );
    expect(mail.to).toEqual(['bob@example.test']);
    expect(mail.raw.replace(/=\r?\n/g, '')).toContain(reviewUrl);

    const bob = await app.signIn(['reviews-editor'], 'bob');
    const reviewed = await app.server.inject({
      method: 'POST',
      url: `${base}/${id}/reviews`,
      headers: bob,
      payload: { state: 'APPROVED', reason: 'fine' },
    });
    expect(reviewed.json().state).toBe('APPROVED');
    const outcome = await eventually(
      () =>
        hook.received
          .map((r) => JSON.parse(r.body))
          .find((b) => b.request?.id === id && b.event === 'approved'),
      'the approval call',
    );
    expect(outcome.recipients).toEqual(expect.arrayContaining(['alice', 'bob']));
    expect(outcome.request).toMatchObject({ state: 'APPROVED', resolveReason: 'fine' });
    const toAlice = await eventually(
      () => mailbox.messages.find((m) => m.to.includes('alice@example.test')),
      'the e-mail to alice',
    );
    expect(toAlice.raw.replace(/=\r?\n/g, '')).toContain(reviewUrl);
  });
});
