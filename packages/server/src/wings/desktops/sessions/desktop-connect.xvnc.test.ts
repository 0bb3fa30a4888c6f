import { apiPaths, desktopResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openDesktopSocket } from '../../../testing/desktop-socket.testkit.js';
import { inviteUser, nextTotp } from '../../../testing/identity.testkit.js';
import { freePort } from '../../../testing/sshd.testkit.js';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { TestRfbClient } from '../rfb/rfb-client.testkit.js';
import { allOneColour } from '../rfb/xvnc-relay.testkit.js';

// The desktop connect socket end to end against a real TigerVNC Xvnc: the in-band sign-in, the
// roles' labels and logins, the proxy signing in with the resource's password, the live session
// (Active Sessions, locks, audit, clipboard rules) and its recording.

const password = 'sesame42';
let xvnc: RunningXvnc;
let app: TestApp;
let wsBase: string;
let dev: Record<string, string>;
let noClipboard: Record<string, string>;
let serversOnly: Record<string, string>;

let role: (name: string, spec: object) => Promise<unknown>;

beforeAll(async () => {
  xvnc = await startXvnc({ password, width: 320, height: 200 });
  const closedPort = await freePort();
  const desktop = (name: string, addr: string, labels: Record<string, string>) =>
    desktopResourceSchema.parse({
      kind: 'desktop',
      metadata: { name, labels },
      spec: { addr, protocol: 'vnc', os: 'Linux', vnc_password: password },
    });
  app = await createTestApp({
    desktops: [
      desktop('build-box', `127.0.0.1:${xvnc.port}`, { env: 'dev' }),
      desktop('gone-box', `127.0.0.1:${closedPort}`, { env: 'dev' }),
      desktop('prod-box', `127.0.0.1:${xvnc.port}`, { env: 'prod' }),
    ],
  });
  role = (name: string, spec: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec }),
      hostActor('test'),
    );
  await role('dev-desktops', {
    allow: { windows_desktop_labels: { env: 'dev' }, windows_desktop_logins: ['dev'] },
  });
  await role('dev-no-clipboard', {
    options: { desktop_clipboard: false, record_session: { desktop: false } },
    allow: { windows_desktop_labels: { env: 'dev' }, windows_desktop_logins: ['dev'] },
  });
  await role('recordings-reader', {
    allow: { rules: [{ resources: ['session'], verbs: ['list', 'read'] }] },
  });
  await role('servers-only', { allow: { node_labels: { '*': '*' }, logins: ['root'] } });
  wsBase = `ws://127.0.0.1:${(await app.listenOnLoopback()).port}`;
  dev = await app.signIn(['dev-desktops', 'recordings-reader'], 'dana');
  noClipboard = await app.signIn(['dev-no-clipboard'], 'nico');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});

afterAll(async () => {
  await app?.close();
  await xvnc?.stop();
});

/** Opens the connect socket as the console does: cookie on the upgrade, bearer in frame one. */
const openDesktop = (
  headers: Record<string, string>,
  name: string,
  username: string,
  token?: string,
) => openDesktopSocket({ wsBase, headers, name, username, ...(token ? { token } : {}) });

async function auditOf(code: string, user: string) {
  const { events } = await app.audit.search({
    from: new Date(Date.now() - 60_000),
    to: new Date(Date.now() + 60_000),
    limit: 200,
  });
  return events.filter((event) => event.code === code && event.user === user);
}

describe('the desktop connect socket', () => {
  it('signs in with the bearer of the first frame only', async () => {
    const opened = await openDesktop(dev, 'build-box', 'dev', 'not-a-token');
    expect(opened.answer).toMatchObject({ status: 'error', message: 'not authenticated' });
    expect((await opened.closed).code).toBe(1008);
  });

  it('refuses a page of another origin before the upgrade', async () => {
    const url = `${wsBase}${apiPaths.desktopConnect('-current-', 'build-box')}?username=dev`;
    const socket = new WebSocket(url, {
      headers: { cookie: dev.cookie ?? '', origin: 'https://evil.example' },
    });
    const status = await new Promise<number>((resolve) =>
      socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(403);
  });

  it('relays the screen as a live, recorded, audited session; the password never reaches the browser', async () => {
    const opened = await openDesktop(dev, 'build-box', 'dev');
    expect(opened.answer).toEqual({ type: 'create_session_response', status: 'ok' });
    const client = await TestRfbClient.connect(opened.rfb);
    expect(client.handshake.security).toBe(1);
    expect(client.handshake.serverInit).toMatchObject({
      width: 320,
      height: 200,
      name: 'build-box',
    });
    await client.until(() => client.updates > 0, 'the first update');
    expect(Buffer.concat(client.received).includes(password)).toBe(false);

    const tracker = app.services.hub.list().find((t) => t.kind === 'desktop' && t.owner === 'dana');
    expect(tracker).toMatchObject({ serverId: 'build-box', login: 'dev', terminal: { w: 320 } });
    await expect.poll(() => auditOf('TDP00I', 'dana')).toHaveLength(1);

    opened.socket.close();
    await expect.poll(() => auditOf('TDP01I', 'dana')).toHaveLength(1);
    const [end] = await auditOf('TDP01I', 'dana');
    expect(end).toMatchObject({
      sid: tracker!.id,
      desktop_name: 'build-box',
      windows_user: 'dev',
      participants: ['dana'],
      recorded: true,
    });
    expect(app.services.hub.list().some((t) => t.id === tracker!.id)).toBe(false);
    const info = await app.server.inject({
      url: apiPaths.desktopRecordingInfo('-current-', tracker!.id),
      headers: dev,
    });
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({ width: 320, height: 200, desktopName: 'build-box' });
  });

  it('refuses a login the roles do not allow, and a desktop they do not reach, audited', async () => {
    const wrongLogin = await openDesktop(dev, 'build-box', 'root');
    expect(wrongLogin.answer.message).toBe(
      'your roles do not allow the login root on desktop build-box',
    );
    expect((await wrongLogin.closed).code).toBe(1008);
    const hidden = await openDesktop(dev, 'prod-box', 'dev');
    expect(hidden.answer.message).toBe('no desktop named prod-box');
    const none = await openDesktop(serversOnly, 'build-box', 'dev');
    expect(none.answer.message).toBe('no desktop named build-box');
    await expect.poll(async () => (await auditOf('TDP00W', 'dana')).length).toBe(2);
  });

  it('asks a user whose roles want a per-session MFA check for its answer, and connects with it', async () => {
    await role('checked', { options: { require_session_mfa: true } });
    const mika = await inviteUser(app, 'mika', { roles: ['dev-desktops', 'checked'] });
    const unchecked = await openDesktop(mika.headers, 'build-box', 'dev');
    expect(unchecked.answer).toMatchObject({ status: 'error', code: 'mfa_required' });
    expect((await unchecked.closed).code).toBe(1008);

    const post = (resource: string) =>
      app.server.inject({
        method: 'POST',
        url: apiPaths.sessionMfaChallenge,
        payload: { resource },
        headers: mika.headers,
      });
    expect((await post('desktop:build-box')).json()).toEqual({ totp_challenge: true });
    const open = (mfaResponse: object) =>
      openDesktopSocket({
        wsBase,
        headers: mika.headers,
        name: 'build-box',
        username: 'dev',
        mfaResponse,
      });
    const wrong = await open({ totp_code: '00000000' });
    expect(wrong.answer.message).toMatch(/the MFA check for this session failed/);
    const checked = await open({ totp_code: nextTotp(app, mika.totpSecret!) });
    expect(checked.answer.status).toBe('ok');
    const client = await TestRfbClient.connect(checked.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    checked.socket.close();
  });

  it('a lock on the device that answered the check ends the desktop session it opened', async () => {
    await role('checked-desktops', {
      options: { require_session_mfa: true },
      allow: { windows_desktop_labels: { env: 'dev' }, windows_desktop_logins: ['dev'] },
    });
    const mia = await inviteUser(app, 'mia', { roles: ['checked-desktops'] });
    // Signed in with no device (as through SSO): the session stands on the check's device alone.
    const headers = await app.signIn(['checked-desktops'], 'mia');
    const post = await app.server.inject({
      method: 'POST',
      url: apiPaths.sessionMfaChallenge,
      payload: { resource: 'desktop:build-box' },
      headers,
    });
    expect(post.statusCode).toBe(200);
    const { devices } = await app.services.users.store.credentials('mia');
    const mfaResponse = { totp_code: nextTotp(app, mia.totpSecret!) };
    const opened = await openDesktopSocket({
      wsBase,
      headers,
      name: 'build-box',
      username: 'dev',
      mfaResponse,
    });
    expect(opened.answer.status).toBe('ok');
    const client = await TestRfbClient.connect(opened.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    const lock = await app.services.locks.create(
      { targets: { mfa_device: devices[0]!.id }, message: 'phone lost' },
      hostActor('test'),
    );
    try {
      expect(await opened.closed).toEqual({ code: 1000, reason: 'locked: phone lost' });
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('says when the desktop cannot be reached', async () => {
    const opened = await openDesktop(dev, 'gone-box', 'dev');
    expect(opened.answer.status).toBe('error');
    expect(opened.answer.message).toMatch(/^cannot reach desktop gone-box: /);
    expect((await opened.closed).code).toBe(1011);
  });

  it('keeps the clipboard where the role says so, and records nothing when it says so', async () => {
    const opened = await openDesktop(noClipboard, 'build-box', 'dev');
    expect(opened.answer.status).toBe('ok');
    const client = await TestRfbClient.connect(opened.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    // Unrecorded, the proxy leaves the pixels undecoded; the browser still gets every change.
    await xvnc.exec('xsetroot', ['-solid', '#507090']);
    await client.until(
      () => allOneColour(client.framebuffer, [0x50, 0x70, 0x90]),
      'the browser’s screen in #507090',
    );
    const copy = xvnc.run('xclip', ['-selection', 'clipboard', '-quiet'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    copy.stdin?.end('not for the browser');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(client.cutTexts).toEqual([]);
    copy.kill();
    opened.socket.close();
    await expect.poll(() => auditOf('TDP01I', 'nico')).toHaveLength(1);
    const [end] = await auditOf('TDP01I', 'nico');
    expect(end?.recorded).toBe(false);
    expect(await auditOf('TDP03I', 'nico')).toEqual([]);
  });

  it('audits the clipboard a role shares, by size', async () => {
    const opened = await openDesktop(dev, 'build-box', 'dev');
    const client = await TestRfbClient.connect(opened.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    // Unrecorded, the proxy leaves the pixels undecoded; the browser still gets every change.
    await xvnc.exec('xsetroot', ['-solid', '#507090']);
    await client.until(
      () => allOneColour(client.framebuffer, [0x50, 0x70, 0x90]),
      'the browser’s screen in #507090',
    );
    const copy = xvnc.run('xclip', ['-selection', 'clipboard', '-quiet'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    copy.stdin?.end('twelve bytes');
    await client.until(() => client.cutTexts.length > 0, 'the desktop clipboard');
    expect(client.cutTexts[0]?.toString()).toBe('twelve bytes');
    await expect.poll(() => auditOf('TDP03I', 'dana')).toHaveLength(1);
    expect((await auditOf('TDP03I', 'dana'))[0]).toMatchObject({ length: 12 });
    copy.kill();
    opened.socket.close();
    await opened.closed;
  });

  it('a lock on the desktop ends its live session and refuses it until the lock goes', async () => {
    const opened = await openDesktop(noClipboard, 'build-box', 'dev');
    const client = await TestRfbClient.connect(opened.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    const lock = await app.services.locks.create(
      { targets: { windows_desktop: 'build-box' }, message: 'reimaging' },
      hostActor('test'),
    );
    expect(await opened.closed).toEqual({ code: 1000, reason: 'locked: reimaging' });
    const refused = await openDesktop(noClipboard, 'build-box', 'dev');
    expect(refused.answer).toMatchObject({ status: 'error', message: 'locked: reimaging' });
    await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    const again = await openDesktop(noClipboard, 'build-box', 'dev');
    expect(again.answer).toEqual({ type: 'create_session_response', status: 'ok' });
    again.socket.close();
    await again.closed;
  });

  it('a lock on the user ends the live session with its message', async () => {
    const opened = await openDesktop(dev, 'build-box', 'dev');
    const client = await TestRfbClient.connect(opened.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    await app.services.locks.create(
      { targets: { user: 'dana' }, message: 'incident 9' },
      hostActor('test'),
    );
    expect(await opened.closed).toEqual({ code: 1000, reason: 'locked: incident 9' });
    const after = await openDesktop(dev, 'build-box', 'dev');
    expect(after.answer.status).toBe('error');
  });
});
