import { integrationJsonSchema, integrationListSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { startReceiver, type Receiver } from './receivers.testkit.js';
import { signBody } from './formats/webhook.js';

let app: TestApp;
let admin: Record<string, string>;
let receiver: Receiver;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.signIn(['editor'], 'root');
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await app.close();
});

const base = '/v1/webapi/sites/test-cluster/integrations';
const create = (payload: object) =>
  app.server.inject({ method: 'POST', url: base, headers: admin, payload });
const update = (name: string, payload: object) =>
  app.server.inject({ method: 'PUT', url: `${base}/${name}`, headers: admin, payload });
const get = (name: string) => app.server.inject({ url: `${base}/${name}`, headers: admin });
const sendTest = (name: string) =>
  app.server.inject({ method: 'POST', url: `${base}/${name}/test`, headers: admin });

const slackSecretUrl = () => `${receiver.url}/T000/B000/slack-secret-token`;

describe('integrations API', () => {
  it('creates, reads, lists, updates and deletes, auditing each change', async () => {
    const created = await create({
      name: 'ops-slack',
      type: 'slack',
      settings: { url: slackSecretUrl(), channel: '#access' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const json = integrationJsonSchema.parse(created.json());
    expect(json).toMatchObject({
      name: 'ops-slack',
      type: 'slack',
      settings: { host: `127.0.0.1:${receiver.port}`, channel: '#access' },
      secretsSet: ['url'],
      status: { state: 'unused', lastDelivery: '', lastError: '', pending: 0 },
      createdBy: 'root',
    });

    const listed = await app.server.inject({ url: base, headers: admin });
    expect(integrationListSchema.parse(listed.json()).items.map((i) => i.name)).toContain(
      'ops-slack',
    );
    expect((await get('ops-slack')).json()).toEqual(json);

    // No URL in the update: the stored (sealed) one stays.
    const updated = await update('ops-slack', {
      name: 'ops-slack',
      type: 'slack',
      settings: { channel: '#reviews' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      settings: { host: `127.0.0.1:${receiver.port}`, channel: '#reviews' },
      secretsSet: ['url'],
    });
    expect((await sendTest('ops-slack')).statusCode).toBe(200);
    expect(receiver.received.at(-1)?.headers['content-type']).toBe('application/json');

    const removed = await app.server.inject({
      method: 'DELETE',
      url: `${base}/ops-slack`,
      headers: admin,
    });
    expect(removed.statusCode).toBe(200);
    expect((await get('ops-slack')).statusCode).toBe(404);
    expect(await app.backend.get('/integration_status/ops-slack')).toBeNull();

    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 864e5),
      limit: 100,
    });
    for (const code of ['TIG01I', 'TIG02I', 'TIG03I']) {
      expect(events).toContainEqual(
        expect.objectContaining({
          code,
          user: 'root',
          name: 'ops-slack',
          integration_type: 'slack',
        }),
      );
    }
  });

  it('never returns a secret and keeps each sealed in the backend', async () => {
    const signingSecret = 'webhook-signing-secret-0123456789';
    const password = 'smtp-password-that-must-stay-hidden';
    const bodies = [
      { name: 'sec-webhook', type: 'webhook', settings: { url: receiver.url, signingSecret } },
      { name: 'sec-mm', type: 'mattermost', settings: { url: slackSecretUrl() } },
      {
        name: 'sec-mail',
        type: 'email',
        settings: {
          host: '127.0.0.1',
          port: 2525,
          security: 'none',
          username: 'mailer',
          password,
          from: 'postern@example.com',
        },
      },
    ];
    const raw: string[] = [];
    for (const body of bodies) {
      const res = await create(body);
      expect(res.statusCode, res.body).toBe(200);
      raw.push(res.body, (await get(body.name)).body);
    }
    raw.push((await app.server.inject({ url: base, headers: admin })).body);
    for (const body of raw) {
      expect(body).not.toContain(signingSecret);
      expect(body).not.toContain(password);
      expect(body).not.toContain('slack-secret-token');
    }
    expect((await get('sec-webhook')).json()).toMatchObject({
      settings: { url: receiver.url },
      secretsSet: ['signingSecret'],
    });
    expect((await get('sec-mail')).json().secretsSet).toEqual(['password']);

    const { items } = await app.backend.list({ prefix: '/integrations/' });
    const stored = items.map((item) => item.value).join('\n');
    expect(stored).toContain('sec-webhook');
    expect(stored).not.toContain(signingSecret);
    expect(stored).not.toContain(password);
    expect(stored).not.toContain('slack-secret-token');
  });

  it('sends a signed test message through a webhook', async () => {
    const signingSecret = 'test-message-signing-secret';
    expect(
      (
        await create({
          name: 'signed-test',
          type: 'webhook',
          settings: { url: receiver.url, signingSecret },
        })
      ).statusCode,
    ).toBe(200);
    const res = await sendTest('signed-test');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    const last = receiver.received.at(-1)!;
    expect(last.headers['x-postern-signature']).toBe(signBody(signingSecret, last.body));
    expect(JSON.parse(last.body)).toMatchObject({ event: 'test', request: null });
    expect((await get('signed-test')).json().status).toMatchObject({ state: 'ok', lastError: '' });
  });

  it("answers Send test message with the receiver's failure", async () => {
    const failing = await startReceiver(() => 503);
    const gone = await startReceiver();
    await gone.close();
    try {
      for (const [name, url] of [
        ['answers-503', failing.url],
        ['refused', gone.url],
      ] as const) {
        const made = await create({ name, type: 'mattermost', settings: { url } });
        expect(made.statusCode, made.body).toBe(200);
      }
      const answered = await sendTest('answers-503');
      expect(answered.statusCode).toBe(400);
      expect(answered.json().error.message).toBe(
        `the test message was not delivered: 127.0.0.1:${failing.port} answered HTTP 503`,
      );
      const refused = await sendTest('refused');
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.message).toBe(
        'the test message was not delivered: connection refused',
      );
      expect((await get('refused')).json().status).toMatchObject({
        state: 'failing',
        lastError: 'connection refused',
      });
    } finally {
      await failing.close();
    }
  });

  it('answers 400 on bad input, naming the field', async () => {
    const cases: [object, RegExp][] = [
      [{ name: 'Bad Name', type: 'slack', settings: { url: receiver.url } }, /^name: /],
      [{ name: 'x', type: 'carrier-pigeon', settings: {} }, /^type: /],
      [
        { name: 'x', type: 'slack', settings: { url: 'ftp://example.com' } },
        /settings\.url: expected an http/,
      ],
      [{ name: 'x', type: 'slack', settings: {} }, /^settings\.url: required$/],
      [
        { name: 'x', type: 'webhook', settings: { url: receiver.url } },
        /^settings\.signingSecret: required$/,
      ],
      [
        { name: 'x', type: 'webhook', settings: { url: receiver.url, signingSecret: 'short' } },
        /settings\.signingSecret: at least 16 characters/,
      ],
      [{ name: 'x', type: 'slack', settings: { url: receiver.url, extra: 1 } }, /extra/],
      [
        {
          name: 'x',
          type: 'email',
          settings: { host: 'smtp.example.com', port: 25, security: 'none', from: 'a@b.c' },
        },
        /^settings\.security: none sends the password in plain text/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
      expect(res.json().error.message).toMatch(message);
    }
    expect(
      (await create({ name: 'twice', type: 'slack', settings: { url: receiver.url } })).statusCode,
    ).toBe(200);
    const again = await create({ name: 'twice', type: 'slack', settings: { url: receiver.url } });
    expect(again.statusCode).toBe(409);
    const renamed = await update('twice', { name: 'other', type: 'slack', settings: {} });
    expect(renamed.json().error.message).toMatch(/^name: cannot be changed/);
    const retyped = await update('twice', { name: 'twice', type: 'mattermost', settings: {} });
    expect(retyped.json().error.message).toMatch(/^type: cannot change from slack/);
    expect(
      (await update('missing', { name: 'missing', type: 'slack', settings: {} })).statusCode,
    ).toBe(404);
  });

  it("refuses the proxy's own listener and link-local addresses", async () => {
    app.context.addresses.report('web', { host: '0.0.0.0', port: 40_123 });
    const refused: [string, RegExp][] = [
      ['http://127.0.0.1:40123/v1/webapi/users', /this proxy's own listener/],
      ['http://localhost:40123/', /this proxy's own listener/],
      ['http://[::ffff:127.0.0.1]:40123/', /this proxy's own listener/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['http://2852039166/latest/meta-data/', /link-local/],
      ['http://[fe80::1]:8080/', /link-local/],
    ];
    for (const [url, message] of refused) {
      const res = await create({ name: 'guarded', type: 'slack', settings: { url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.message, url).toMatch(/^settings\.url: /);
      expect(res.json().error.message, url).toMatch(message);
    }
    const smtp = await create({
      name: 'guarded',
      type: 'email',
      settings: { host: '127.0.0.1', port: 40_123, security: 'none', from: 'a@b.c' },
    });
    expect(smtp.json().error.message).toMatch(/^settings\.host: .*own listener/);
    // Another port on loopback is someone else's: allowed.
    const other = await create({ name: 'guarded', type: 'slack', settings: { url: receiver.url } });
    expect(other.statusCode, other.body).toBe(200);
  });
});
