import { apiPaths, desktopResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../agent/tunnel-proxy.testkit.js';
import { TestRfbClient } from '../rfb/rfb-client.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openDesktopSocket } from '../../../testing/desktop-socket.testkit.js';
import { inviteUser, nextTotp, type TestUser } from '../../../testing/identity.testkit.js';
import { createRole, createSessionMfaRole } from '../../../testing/roles.testkit.js';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { connectLeaf } from '../../../modules/trusted-clusters/trusted-clusters.testkit.js';

// A leaf's desktop from the root's console under per-session MFA (docs/trusted-clusters.md):
// the leaf asks for the check, the console answers the root's challenge for the desktop, and the
// root, which relays the socket, checks the answer with its own devices and hands the leaf its
// signed word instead. A real TigerVNC Xvnc behind the leaf.

const password = 'sesame42';
let xvnc: RunningXvnc;
let root: TestApp;
let leaf: TestApp;
let wsBase: string;
let mika: TestUser;

beforeAll(async () => {
  xvnc = await startXvnc({ password, width: 320, height: 200 });
  root = await createTestApp({ clusterName: 'root' });
  const rootUrl = (await root.listenOnLoopback()).baseUrl;
  wsBase = rootUrl.replace(/^http/, 'ws');
  leaf = await createTestApp({
    clusterName: 'leaf',
    desktops: [
      desktopResourceSchema.parse({
        kind: 'desktop',
        metadata: { name: 'lab-box', labels: { env: 'lab' } },
        spec: {
          addr: `127.0.0.1:${xvnc.port}`,
          protocol: 'vnc',
          os: 'Linux',
          vnc_password: password,
        },
      }),
    ],
  });
  await leaf.listenOnLoopback();
  await createRole(leaf, 'lab-desktops', {
    allow: { windows_desktop_labels: { env: 'lab' }, windows_desktop_logins: ['dev'] },
  });
  await createSessionMfaRole(leaf, 'checked');
  await createRole(root, 'lab-user', {});
  await createRole(root, 'lab-plain', {});
  await createSessionMfaRole(root, 'checked-at-root');
  const roleMap = `[{remote: lab-user, local: [lab-desktops, checked]}, {remote: lab-plain, local: [lab-desktops]}]`;
  await connectLeaf(root, rootUrl, leaf, roleMap);
  await eventually(
    () => root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
    10_000,
    'the tunnel',
  );
  mika = await inviteUser(root, 'mika', { roles: ['lab-user'] });
});

afterAll(async () => {
  await leaf?.close();
  await root?.close();
  await xvnc?.stop();
});

const open = (mfaResponse?: object, user: TestUser = mika) =>
  openDesktopSocket({
    wsBase,
    headers: user.headers,
    clusterId: 'leaf',
    name: 'lab-box',
    username: 'dev',
    ...(mfaResponse ? { mfaResponse } : {}),
  });

describe("a leaf's desktop under per-session MFA, from the root", () => {
  it("asks, and connects with the answer to the root's challenge", async () => {
    const unchecked = await open();
    expect(unchecked.answer).toMatchObject({ status: 'error', code: 'mfa_required' });

    // What the console does: the root's challenge for the desktop, with the root's devices.
    const challenge = await root.server.inject({
      method: 'POST',
      url: apiPaths.sessionMfaChallenge,
      payload: { resource: 'desktop:lab-box' },
      headers: mika.headers,
    });
    expect(challenge.json()).toEqual({ totp_challenge: true });
    const wrong = await open({ totp_code: '00000000' });
    expect(wrong.answer.message).toMatch(/the MFA check for this session failed/);
    const checked = await open({ totp_code: nextTotp(root, mika.totpSecret!) });
    expect(checked.answer.status).toBe('ok');
    const client = await TestRfbClient.connect(checked.rfb);
    await client.until(() => client.updates > 0, 'the first update');
    checked.socket.close();
  });

  it("asks for a root role's rule too, though the leaf's roles do not", async () => {
    const rhea = await inviteUser(root, 'rhea', { roles: ['lab-plain', 'checked-at-root'] });
    const unchecked = await open(undefined, rhea);
    expect(unchecked.answer).toMatchObject({ status: 'error', code: 'mfa_required' });
    const checked = await open({ totp_code: nextTotp(root, rhea.totpSecret!) }, rhea);
    expect(checked.answer.status).toBe('ok');
    checked.socket.close();
  });

  it("refuses a word of the root's made up by the caller", async () => {
    const forged = await open({ root_assertion: 'made.up.word' });
    expect(forged.answer.status).toBe('error');
    expect(forged.answer.message).toBe('the MFA answer is not a key assertion or a code');
  });
});
