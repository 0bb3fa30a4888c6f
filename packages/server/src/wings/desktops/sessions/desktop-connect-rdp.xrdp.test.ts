import { desktopResourceSchema } from '@postern/contracts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openDesktopSocket } from '../../../testing/desktop-socket.testkit.js';
import { startXrdp, type RunningXrdp } from '../../../testing/xrdp.testkit.js';
import { TestRfbClient } from '../rfb/rfb-client.testkit.js';
import { eventually } from '../rfb/rfb.testkit.js';

// An RDP desktop through the connect socket, against a real xrdp: the proxy signs in over RDP
// with the login's stored password and serves noVNC the decoded screen as VNC, with keys and
// the pointer going back as RDP input; the session is live, recorded and audited like VNC's.

const password = 'rdp-pass1';
let xrdp: RunningXrdp;
let app: TestApp;
let wsBase: string;
let dev: Record<string, string>;
let noClipboard: Record<string, string>;

beforeAll(async () => {
  xrdp = await startXrdp({ password, width: 640, height: 480 });
  await xrdp.xvnc.exec('xsetroot', ['-solid', '#ff8000']);
  const desktop = (name: string, passwords: Record<string, string>) =>
    desktopResourceSchema.parse({
      kind: 'windows_desktop',
      metadata: { name, labels: { env: 'dev' } },
      spec: { addr: `127.0.0.1:${xrdp.port}`, protocol: 'rdp', rdp_passwords: passwords },
    });
  app = await createTestApp({
    desktops: [desktop('win-box', { dev: password })],
  });
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'dev-desktops' },
      spec: {
        allow: { windows_desktop_labels: { env: 'dev' }, windows_desktop_logins: ['dev', 'ops'] },
      },
    }),
    hostActor('test'),
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'dev-no-clipboard' },
      spec: {
        options: { desktop_clipboard: false },
        allow: { windows_desktop_labels: { env: 'dev' }, windows_desktop_logins: ['dev'] },
      },
    }),
    hostActor('test'),
  );
  wsBase = `ws://127.0.0.1:${(await app.listenOnLoopback()).port}`;
  dev = await app.signIn(['dev-desktops'], 'dana');
  noClipboard = await app.signIn(['dev-no-clipboard'], 'nico');
});

afterAll(async () => {
  await app?.close();
  await xrdp?.stop();
});

const openDesktop = (name: string, username: string, headers = dev) =>
  openDesktopSocket({ wsBase, headers, name, username, width: 400, height: 300 });

const pixelAt = (client: TestRfbClient, x: number, y: number) => {
  const at = (y * client.framebuffer.width + x) * 4;
  return [...client.framebuffer.pixels().subarray(at, at + 3)].join();
};

/** Types as noVNC does: Shift around the characters a US keyboard shifts. */
function typeWithShift(client: TestRfbClient, text: string): void {
  for (const char of text) {
    const shifted = /[A-Z!@#$%^&*()_+{}|:"<>?~]/.test(char);
    if (shifted) client.key(0xffe1, true);
    client.type(char);
    if (shifted) client.key(0xffe1, false);
  }
}

describe('an RDP desktop in the browser', () => {
  it('shows the desktop at the browser’s size, takes keys, and is a recorded desktop session', async () => {
    const opened = await openDesktop('win-box', 'dev');
    expect(opened.answer.status).toBe('ok');
    const client = await TestRfbClient.connect(opened.rfb);
    expect(client.handshake.serverInit).toMatchObject({ width: 400, height: 300, name: 'win-box' });
    await client.until(
      () => pixelAt(client, 200, 150) === '255,128,0',
      'the orange desktop',
      15_000,
    );
    expect(client.bytes().includes(password)).toBe(false);
    const tracker = app.services.hub.list().find((t) => t.kind === 'desktop' && t.owner === 'dana');
    expect(tracker).toMatchObject({ serverId: 'win-box', login: 'dev' });

    xrdp.xvnc.run('xterm', ['-geometry', '60x10+0+0', '-T', 'rdp-typing', '-e', 'sh']);
    await eventually(
      async () =>
        (await xrdp.xvnc.exec('xwininfo', ['-name', 'rdp-typing'])).includes('IsViewable'),
      'the xterm',
    );
    client.pointer(50, 50); // no window manager: keys go to the window under the pointer
    const file = path.join(xrdp.xvnc.dir, 'typed-over-rdp');
    typeWithShift(client, `echo Typed-$((6*7)) > ${file}\n`);
    await eventually(async () => (await readFile(file, 'utf8')) === 'Typed-42\n', 'the typed file');

    opened.socket.close();
    await eventually(async () => {
      const { events } = await app.audit.search({
        from: new Date(Date.now() - 60_000),
        to: new Date(Date.now() + 60_000),
        limit: 50,
      });
      return events.some(
        (e) =>
          e.code === 'TDP01I' && e.sid === tracker!.id && e.proto === 'rdp' && e.recorded === true,
      );
    }, 'the end of the session in the audit log');
  });

  it('says why when no password is stored for the login, before dialling', async () => {
    const none = await openDesktop('win-box', 'ops');
    expect(none.answer.message).toBe('no password is stored for the login ops on desktop win-box');
  });

  it('passes copied text both ways over the clipboard channel, audited, only when the role shares it', async () => {
    const copyOnDesktop = (text: string) =>
      xrdp.xvnc
        .run('xclip', ['-selection', 'clipboard', '-quiet'], {
          stdio: ['pipe', 'ignore', 'ignore'],
        })
        .stdin?.end(text);
    const shared = await openDesktop('win-box', 'dev');
    const client = await TestRfbClient.connect(shared.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    // xrdp's VNC side starts watching the clipboard a moment after the session is up: a copy
    // made before that is not announced, so the copy is made again until one arrives.
    const arrived = () =>
      client.cutTexts.some((text) => text.toString('latin1') === 'from the rdp desktop');
    for (let attempt = 0; attempt < 15 && !arrived(); attempt++) {
      copyOnDesktop('from the rdp desktop');
      await client.until(arrived, 'the desktop’s text', 1000).catch(() => undefined);
    }
    expect(arrived()).toBe(true);
    client.cutText('from the browser');
    await eventually(
      async () =>
        (await xrdp.xvnc.exec('xclip', ['-o', '-selection', 'clipboard'])).toString() ===
        'from the browser',
      'the browser’s text on the desktop',
    );
    shared.socket.close();

    const withheld = await openDesktop('win-box', 'dev', noClipboard);
    const quiet = await TestRfbClient.connect(withheld.rfb);
    await quiet.until(() => quiet.updates > 0, 'the first update');
    copyOnDesktop('not for nico');
    quiet.cutText('nor from nico');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(quiet.cutTexts).toEqual([]);
    expect((await xrdp.xvnc.exec('xclip', ['-o', '-selection', 'clipboard'])).toString()).toBe(
      'not for nico',
    );
    withheld.socket.close();
    const { events } = await app.audit.search({
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 60_000),
      limit: 200,
    });
    const clipboard = events.filter((e) => e.code === 'TDP02I' || e.code === 'TDP03I');
    expect(clipboard.some((e) => e.user === 'dana' && e.code === 'TDP03I')).toBe(true);
    expect(clipboard.some((e) => e.user === 'dana' && e.code === 'TDP02I' && e.length === 16)).toBe(
      true,
    );
    expect(clipboard.some((e) => e.user === 'nico')).toBe(false);
  });
});
