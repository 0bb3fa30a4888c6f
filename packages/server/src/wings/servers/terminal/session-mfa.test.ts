import {
  mfaChallengeSchema,
  terminalMessageTypes as T,
  type MfaChallenge,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { createRole } from '../../../testing/roles.testkit.js';
import { inviteUser, nextTotp, type TestUser } from '../../../testing/identity.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';

// require_session_mfa in the web terminal: the proxy asks for a fresh second factor on the
// socket's `n` frame before it dials the server, and checks the answer, against a real sshd.

let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let baseUrl: string;
let nodeId: string;
const users: Record<string, TestUser> = {};

beforeAll(async () => {
  app = await createTestApp();
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
    hostActor('test'),
  );
  nodeId = node.metadata.name;
  const root = { node_labels: { '*': '*' }, logins: ['root'] };
  await createRole(app, 'root-with-mfa', { options: { require_session_mfa: true }, allow: root });
  await createRole(app, 'root', { allow: root });
  await createRole(app, 'watcher-with-mfa', {
    options: { require_session_mfa: true },
    allow: {
      join_sessions: [{ name: 'watch', roles: ['root'], kinds: ['ssh'], modes: ['observer'] }],
    },
  });
  users.tom = await inviteUser(app, 'tom', { roles: ['root-with-mfa'], device: 'totp' });
  users.kim = await inviteUser(app, 'kim', { roles: ['root-with-mfa'], device: 'webauthn' });
  // Signed in with no device registered (as an SSO user may be).
  const nina = await app.signIn(['root-with-mfa'], 'nina');
  users.nina = { name: 'nina', password: null, headers: nina } as unknown as TestUser;
  users.ron = await inviteUser(app, 'ron', { roles: ['root'], device: 'totp' });
  users.wes = await inviteUser(app, 'wes', { roles: ['watcher-with-mfa'], device: 'totp' });
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  await app?.close();
});

const open = (user: TestUser) =>
  openTerminal({
    baseUrl,
    headers: user.headers,
    params: { term: { w: 80, h: 24 }, server_id: nodeId, login: 'root' },
  });

async function challengeOf(client: TerminalClient): Promise<MfaChallenge> {
  await client.waitFor(() => client.frames.some((f) => f.type === T.mfaChallenge), 'a challenge');
  const frame = client.frames.find((f) => f.type === T.mfaChallenge)!;
  return mfaChallengeSchema.parse(JSON.parse(frame.payload));
}

const answer = (client: TerminalClient, response: object) =>
  client.send(T.mfaChallenge, JSON.stringify(response));

async function refusal(client: TerminalClient): Promise<string> {
  await client.closed;
  return client.frames.find((f) => f.type === T.error)?.payload ?? '';
}

const failedAuthEvents = async (user: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 1000 })
  ).events.filter((event) => event.code === 'T3007W' && event.user === user);

describe('require_session_mfa in the web terminal', () => {
  it('asks an authenticator app user for a code, refuses a wrong one, opens on the right one', async () => {
    const wrong = await open(users.tom!);
    expect(wrong.response.status).toBe('ok');
    expect(await challengeOf(wrong)).toEqual({ totp_challenge: true });
    // Nothing of the server yet: the proxy has not dialled it.
    expect(wrong.output()).toBe('');
    answer(wrong, { totp_code: '00000000' });
    expect(await refusal(wrong)).toMatch(/the MFA check for this session failed/);
    expect(await failedAuthEvents('tom')).toHaveLength(1);

    const right = await open(users.tom!);
    await challengeOf(right);
    answer(right, { totp_code: nextTotp(app, users.tom!.totpSecret!) });
    await right.waitForOutput(/[#$] $/m);
    right.type('echo "mfa=$((6*7))"\r');
    await right.waitForOutput('mfa=42');
    right.close();
  });

  it('refuses a device under an mfa_device lock at the check, and audits it', async () => {
    const { devices } = await app.services.users.store.credentials('tom');
    const lock = await app.services.locks.create(
      { targets: { mfa_device: devices[0]!.id }, message: 'phone lost' },
      hostActor('test'),
    );
    try {
      const before = (await failedAuthEvents('tom')).length;
      const client = await open(users.tom!);
      await challengeOf(client);
      answer(client, { totp_code: nextTotp(app, users.tom!.totpSecret!) });
      expect(await refusal(client)).toContain(
        'the MFA check for this session failed: this MFA device is locked: phone lost',
      );
      expect(await failedAuthEvents('tom')).toHaveLength(before + 1);
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('a lock on the device that answered the check ends the session the check opened', async () => {
    // Signed in with no device (as through SSO): the session stands on the check's device alone.
    const headers = await app.signIn(['root-with-mfa'], 'tom');
    const { devices } = await app.services.users.store.credentials('tom');
    const client = await openTerminal({
      baseUrl,
      headers,
      params: { term: { w: 80, h: 24 }, server_id: nodeId, login: 'root' },
    });
    await challengeOf(client);
    answer(client, { totp_code: nextTotp(app, users.tom!.totpSecret!) });
    await client.waitForOutput(/[#$] $/m);
    const lock = await app.services.locks.create(
      { targets: { mfa_device: devices[0]!.id }, message: 'phone lost mid-session' },
      hostActor('test'),
    );
    try {
      await client.closed;
      const end = client.frames.find((frame) => frame.type === T.sessionEnd)?.payload ?? '{}';
      expect(JSON.parse(end)).toEqual({ reason: 'locked: phone lost mid-session' });
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('asks a hardware key user for an assertion bound to this socket', async () => {
    const first = await open(users.kim!);
    const second = await open(users.kim!);
    const [one, two] = [await challengeOf(first), await challengeOf(second)];
    expect(one.webauthn_challenge?.publicKey).toBeDefined();
    expect(one.totp_challenge).toBe(false);
    // The first socket's assertion does not open the second.
    const forFirst = users.kim!.authenticator!.assert(one.webauthn_challenge!.publicKey);
    answer(second, { webauthn_response: forFirst });
    expect(await refusal(second)).toMatch(/the MFA check for this session failed/);
    expect(two.webauthn_challenge).toBeDefined();

    const again = await open(users.kim!);
    const challenge = await challengeOf(again);
    answer(again, {
      webauthn_response: users.kim!.authenticator!.assert(challenge.webauthn_challenge!.publicKey),
    });
    await again.waitForOutput(/[#$] $/m);
    again.close();
    first.close();
  });

  it('refuses a user with no device to answer, and a malformed answer', async () => {
    const client = await open(users.nina!);
    expect(await refusal(client)).toMatch(/no MFA device this cluster accepts/);
    expect(client.frames.some((f) => f.type === T.mfaChallenge)).toBe(false);

    const garbled = await open(users.tom!);
    await challengeOf(garbled);
    answer(garbled, { code: 'yes please' });
    expect(await refusal(garbled)).toMatch(/not a key assertion or a code/);
  });

  it('asks before a join too, and the checked joiner watches the session', async () => {
    const shell = await open(users.ron!);
    await shell.waitForOutput(/[#$] $/m);
    const sidFrame = shell.frames.find((f) => f.type === T.sessionData)!;
    const sid = (JSON.parse(sidFrame.payload) as { session: { id: string } }).session.id;
    const joiner = await openTerminal({
      baseUrl,
      headers: users.wes!.headers,
      params: { term: { w: 80, h: 24 }, sid, mode: 'observer' },
    });
    expect(await challengeOf(joiner)).toEqual({ totp_challenge: true });
    answer(joiner, { totp_code: nextTotp(app, users.wes!.totpSecret!) });
    joiner.send(T.readyToJoin);
    shell.type('echo "watched-$((2*21))"\r');
    await joiner.waitForOutput('watched-42');
    joiner.close();
    shell.close();
  });

  it('asks nothing of a user whose roles do not require it', async () => {
    const client = await open(users.ron!);
    await client.waitForOutput(/[#$] $/m);
    expect(client.frames.some((f) => f.type === T.mfaChallenge)).toBe(false);
    client.close();
  });
});
