import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { eventually, until } from './rfb.testkit.js';
import { relayTo } from './xvnc-relay.testkit.js';

describe('the VNC relay with a real Xvnc (VNC Authentication)', () => {
  const password = 'sesame42';
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc({ password });
  });
  afterAll(() => xvnc.stop());

  it('signs in with the password, which never reaches the browser', async () => {
    const { session, client } = await relayTo(xvnc, { password });
    await client.until(() => client.updates > 0, 'the first update');
    expect(client.handshake.security).toBe(1);
    expect(client.bytes().includes(password)).toBe(false);
    session.close('test over');
  });

  it('rejects a wrong password, or none, with a message for people', async () => {
    await expect(relayTo(xvnc, { password: 'wrong' })).rejects.toThrow(
      /^the desktop refused its password/,
    );
    await expect(relayTo(xvnc)).rejects.toThrow(
      'the desktop asks for a VNC password and none is set for it',
    );
  });

  it('signs in to an Xvnc that speaks only RFB 3.3', async () => {
    const old = await startXvnc({ password, args: ['-Protocol3.3'] });
    try {
      const { session, client } = await relayTo(old, { password });
      await client.until(() => client.updates > 0, 'the first update');
      session.close('test over');
    } finally {
      await old.stop();
    }
  });
});

describe('the VNC relay with a real Xvnc: clipboard, keyboard, bad input', () => {
  let xvnc: RunningXvnc;
  beforeAll(async () => {
    xvnc = await startXvnc();
  });
  afterAll(() => xvnc.stop());

  /** Makes `text` the X clipboard, as copying in a desktop application would. */
  function copyInDesktop(text: string): void {
    const xclip = xvnc.run('xclip', ['-selection', 'clipboard', '-quiet'], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    xclip.stdin?.end(text);
  }
  const pasteInDesktop = async () =>
    (await xvnc.exec('xclip', ['-o', '-selection', 'clipboard'])).toString();

  it.each([true, false])(
    'relays what is copied on the desktop only when allowed (%s)',
    async (allowed) => {
      const { session, client, clipboard } = await relayTo(xvnc, {
        clipboard: { toDesktop: true, fromDesktop: allowed },
      });
      await client.until(() => client.updates > 0, 'the first update');
      const text = `copied on the desktop, ${allowed}`;
      copyInDesktop(text);
      await until(() => clipboard.length > 0, 'the clipboard to be reported');
      expect(clipboard).toEqual([{ direction: 'from-desktop', bytes: text.length, allowed }]);
      if (allowed) {
        await client.until(() => client.cutTexts.length > 0, 'the text in the browser');
        expect(client.cutTexts.map(String)).toEqual([text]);
      } else {
        // Whatever follows the dropped text still arrives, the text never does.
        client.send(Buffer.from([3, 0, 0, 0, 0, 0, 0, 1, 0, 1]));
        const updates = client.updates;
        await client.until(() => client.updates > updates, 'a later update');
        expect(client.cutTexts).toEqual([]);
      }
      session.close('test over');
    },
  );

  it.each([true, false])(
    'relays what the browser pastes only when allowed (%s)',
    async (allowed) => {
      const { session, client, clipboard } = await relayTo(xvnc, {
        clipboard: { toDesktop: allowed, fromDesktop: true },
      });
      await client.until(() => client.updates > 0, 'the first update');
      const text = `pasted from the browser, ${allowed}`;
      client.cutText(text);
      await until(() => clipboard.length > 0, 'the clipboard to be reported');
      expect(clipboard).toEqual([{ direction: 'to-desktop', bytes: text.length, allowed }]);
      if (allowed) {
        await eventually(async () => (await pasteInDesktop()) === text, 'the text on the desktop');
      } else {
        // A key typed after the text is handled once the text would have been.
        client.key(0xffe1, true);
        client.key(0xffe1, false);
        expect(await pasteInDesktop().catch(() => '')).not.toBe(text);
      }
      session.close('test over');
    },
  );

  it('types through the relay into an xterm on the desktop', async () => {
    const { session, client } = await relayTo(xvnc);
    await client.until(() => client.updates > 0, 'the first update');
    xvnc.run('xterm', ['-geometry', '80x24+0+0', '-T', 'typing', '-e', 'sh']);
    await eventually(
      async () => (await xvnc.exec('xwininfo', ['-name', 'typing'])).includes('IsViewable'),
      'the xterm',
    );
    // No window manager: keys go to the window under the pointer.
    client.pointer(100, 100);
    const file = path.join(xvnc.dir, 'typed');
    client.type(`echo relayed > ${file}\n`);
    await eventually(
      async () => (await readFile(file, 'utf8')) === 'relayed\n',
      'the file the xterm wrote',
    );
    session.close('test over');
  });

  it('ends a session whose browser sends garbage, and Xvnc serves the next one', async () => {
    const bad = await relayTo(xvnc);
    await bad.client.until(() => bad.client.updates > 0, 'the first update');
    bad.client.send(Buffer.from([200, 1, 2, 3]));
    expect(await bad.session.closed).toEqual({
      reason: 'protocol error: the browser sent a client message of unknown type 200',
      error: true,
    });
    const next = await relayTo(xvnc);
    await next.client.until(() => next.client.updates > 0, 'the next session’s update');
    next.session.close('test over');
  });
});
