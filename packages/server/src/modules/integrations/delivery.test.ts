import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signBody } from './formats/webhook.js';
import type { UserResource } from '../../identity/users/users.store.js';
import { buildIntegrations, emailOf } from './index.js';
import type { IntegrationsService } from './integrations.service.js';
import type { AccessRequestNotice } from './notice.js';
import { startMailbox, startReceiver, type Receiver } from './receivers.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const admin = hostActor('admin');
const emails: Record<string, string> = { bob: 'bob@example.com', carol: 'carol@example.com' };
const userWithEmail = (email: string | undefined) =>
  email
    ? ({ spec: { traits: { logins: [], email: [email] } } } as unknown as UserResource)
    : undefined;
/** The text of a quoted-printable body, as a mail client shows it. */
const unquote = (raw: string) =>
  raw
    .replaceAll('=\r\n', '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

/** A service of its own over the app's storage and audit, with short retries. */
function service(delivery = { attemptTimeoutMs: 2_000, backoffMs: [20, 40, 80] }) {
  const integrations = buildIntegrations({
    backend: app.backend,
    audit: app.audit,
    now: Date.now,
    // The watched users, as far as e-mail goes: bob and carol have an `email` trait.
    users: { get: (user) => userWithEmail(emails[user]) },
    addresses: app.context.addresses,
    onError: (error) => {
      throw error;
    },
    delivery,
  });
  open.push(integrations);
  return integrations;
}

async function receiverFor(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const receiver = await startReceiver(answer);
  open.push(receiver);
  return receiver;
}

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${++counter}`;

const notice = (over: Partial<AccessRequestNotice> = {}): AccessRequestNotice => ({
  event: 'created',
  request: {
    id: '8b5e3c1e-1111-4222-8333-944455556666',
    state: 'PENDING',
    user: 'alice',
    roles: ['editor'],
    resources: [],
    reason: 'deploy <https://evil.example|the fix> @channel',
    resolveReason: '',
    created: '2026-01-02T03:04:05.000Z',
    accessExpires: '2026-01-02T07:04:05.000Z',
    suggestedReviewers: ['bob', 'carol'],
  },
  recipients: ['bob', 'carol'],
  reviewUrl: 'https://proxy.test:3080/web/requests/8b5e3c1e-1111-4222-8333-944455556666',
  ...over,
});

async function auditEvents(code: string) {
  const { events } = await app.audit.search({
    from: new Date(0),
    to: new Date(Date.now() + 864e5),
    limit: 1000,
  });
  return events.filter((event) => event.code === code);
}

async function add(integrations: IntegrationsService, type: string, settings: object) {
  const name = uniqueName(type);
  await integrations.create({ name, type, settings } as never, admin);
  return name;
}

describe('deliveries', () => {
  it('posts a generic webhook whose signature verifies', async () => {
    const integrations = service();
    const receiver = await receiverFor();
    const signingSecret = 'a-long-enough-signing-secret';
    await add(integrations, 'webhook', { url: receiver.url, signingSecret });
    integrations.notify(notice());
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    const { headers, body } = receiver.received[0]!;
    expect(headers['x-postern-signature']).toBe(signBody(signingSecret, body));
    expect(signBody('another-signing-secret', body)).not.toBe(headers['x-postern-signature']);
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({
      event: 'created',
      request: { user: 'alice', roles: ['editor'] },
      reviewUrl: notice().reviewUrl,
      recipients: ['bob', 'carol'],
    });
    expect(String(payload.timestamp)).toBe(headers['x-postern-timestamp']);
    expect(Math.abs(Number(headers['x-postern-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('posts Slack and Mattermost messages with the link, the reason and the reviewers', async () => {
    const integrations = service();
    const slack = await receiverFor();
    const mattermost = await receiverFor();
    await add(integrations, 'slack', { url: slack.url, channel: '#access' });
    await add(integrations, 'mattermost', { url: mattermost.url, channel: 'town-square' });
    integrations.notify(notice());
    await vi.waitFor(() => expect(slack.received.length + mattermost.received.length).toBe(2));

    const slackBody = JSON.parse(slack.received[0]!.body);
    expect(slackBody.channel).toBe('#access');
    expect(slackBody.text).toContain('*alice* requests access to *editor*');
    expect(slackBody.text).toContain(`<${notice().reviewUrl}|Review request>`);
    expect(slackBody.text).toContain('@bob @carol');
    // The reason cannot make a link of its own nor page the channel.
    expect(slackBody.text).toContain(
      'Reason: deploy &lt;https://evil.example|the fix&gt; @\u200bchannel',
    );

    const mmBody = JSON.parse(mattermost.received[0]!.body);
    expect(mmBody).toMatchObject({ channel: 'town-square' });
    expect(mmBody.text).toContain('**alice** requests access to **editor**');
    expect(mmBody.text).toContain(`[Review request](${notice().reviewUrl})`);
    expect(mmBody.text).toContain('Reviewers: @bob @carol');
    expect(mmBody.text).not.toContain('@channel');
  });

  it('e-mails the reviewers through a real SMTP server', async () => {
    const integrations = service();
    const mailbox = await startMailbox();
    open.push(mailbox);
    await add(integrations, 'email', {
      host: '127.0.0.1',
      port: mailbox.port,
      security: 'none',
      username: 'mailer',
      password: 'smtp-password-1',
      from: 'postern@example.com',
      fallbackRecipients: ['security@example.com'],
    });
    integrations.notify(notice());
    await vi.waitFor(() => expect(mailbox.messages).toHaveLength(1));
    const [mail] = mailbox.messages;
    expect(mail!.from).toBe('postern@example.com');
    expect(mail!.to.sort()).toEqual(['bob@example.com', 'carol@example.com']);
    expect(mail!.raw).toContain('Subject: Access request from alice: editor');
    expect(unquote(mail!.raw)).toContain(`Review the request: ${notice().reviewUrl}`);
    expect(unquote(mail!.raw)).toContain('Reason: deploy');

    // Nobody with an address: the fallback recipients hear instead.
    integrations.notify(notice({ event: 'approved', recipients: ['alice', 'dave'] }));
    await vi.waitFor(() => expect(mailbox.messages).toHaveLength(2));
    expect(mailbox.messages[1]!.to).toEqual(['security@example.com']);
    expect(mailbox.messages[1]!.raw).toContain(
      'Subject: Access request from alice approved: editor',
    );
  });

  it("takes a user's e-mail from the email trait, or from a name that is an address", () => {
    expect(emailOf(userWithEmail('bob@example.com'), 'bob')).toBe('bob@example.com');
    expect(emailOf(undefined, 'dana@example.com')).toBe('dana@example.com');
    expect(emailOf(undefined, 'dave')).toBeUndefined();
  });

  it('retries a failing receiver, then succeeds', async () => {
    const integrations = service();
    const receiver = await receiverFor((n) => (n < 2 ? 500 : 200));
    const name = await add(integrations, 'mattermost', { url: receiver.url });
    integrations.notify(notice());
    await vi.waitFor(async () => {
      expect((await integrations.get(name, admin)).status).toMatchObject({
        state: 'ok',
        lastError: '',
        pending: 0,
      });
    });
    expect(receiver.received).toHaveLength(3);
  });

  it('after the last retry: status failing and one TIG10W event', async () => {
    const integrations = service();
    const receiver = await receiverFor(() => 502);
    const name = await add(integrations, 'slack', { url: receiver.url });
    integrations.notify(notice());
    await vi.waitFor(async () => {
      expect((await auditEvents('TIG10W')).filter((e) => e.name === name)).toHaveLength(1);
    });
    expect(receiver.received).toHaveLength(4); // the first attempt and three retries
    await integrations.queue.settled();
    const { status } = await integrations.get(name, admin);
    expect(status).toMatchObject({
      state: 'failing',
      lastError: `127.0.0.1:${receiver.port} answered HTTP 502`,
      pending: 0,
    });
    expect((await auditEvents('TIG10W')).find((e) => e.name === name)).toMatchObject({
      event: 'integration.delivery.failed',
      subject: 'Access request from alice: editor',
      error: `127.0.0.1:${receiver.port} answered HTTP 502`,
    });
  });

  it('a receiver that never answers delays neither notify nor the other integrations', async () => {
    const integrations = service({ attemptTimeoutMs: 300, backoffMs: [] });
    const hanging = await receiverFor(() => 'hang');
    const healthy = await receiverFor();
    const stuck = await add(integrations, 'slack', { url: hanging.url });
    await add(integrations, 'mattermost', { url: healthy.url });

    let returned = false;
    const started = performance.now();
    integrations.notify(notice());
    returned = true; // notify is synchronous: nothing after it ran before it returned
    expect(performance.now() - started).toBeLessThan(50);
    expect(returned).toBe(true);

    await vi.waitFor(() => expect(healthy.received).toHaveLength(1));
    expect(hanging.received.length).toBeLessThanOrEqual(1);
    await vi.waitFor(async () => {
      expect((await integrations.get(stuck, admin)).status).toMatchObject({
        state: 'failing',
        lastError: 'no answer within 0.3 s',
      });
    });
  });

  it("refuses at delivery time a target that became the proxy's own listener", async () => {
    const integrations = service({ attemptTimeoutMs: 2_000, backoffMs: [20] });
    const receiver = await receiverFor();
    const name = await add(integrations, 'slack', { url: receiver.url });
    // The proxy now listens on that port (as if it moved there after the save).
    app.context.addresses.report('integration-test', { host: '127.0.0.1', port: receiver.port });
    try {
      integrations.notify(notice());
      await vi.waitFor(async () => {
        expect((await integrations.get(name, admin)).status.lastError).toMatch(
          /^refused: 127\.0\.0\.1:\d+ is this proxy's own listener$/,
        );
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      app.context.addresses.report('integration-test', { host: '127.0.0.1', port: 1 });
    }
  });
});
