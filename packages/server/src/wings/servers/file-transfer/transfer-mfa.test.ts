import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import {
  inviteUser,
  loginWithTotp,
  nextTotp,
  sessionHeaders,
  type TestUser,
} from '../../../testing/identity.testkit.js';
import { createRole, createSessionMfaRole } from '../../../testing/roles.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';

// require_session_mfa for the console's file transfers, against a real sshd: a transfer is
// refused with mfa_required until the web session passes a check for files:<server>
// (mfa/session/challenge, then mfa/session/verify); the check then lets transfers to that
// server, from that web session, start for a minute.

let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let node: string;
let dir: string;
let mona: TestUser;

beforeAll(async () => {
  app = await createTestApp();
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const added = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    hostActor('test'),
  );
  node = added.metadata.name;
  await createRole(app, 'root-access', { allow: { node_labels: { '*': '*' }, logins: ['root'] } });
  await createSessionMfaRole(app);
  mona = await inviteUser(app, 'mona', { roles: ['root-access', 'checked'] });
  dir = await mkdtemp(path.join(tmpdir(), 'postern-xfer-mfa-'));
  await writeFile(path.join(dir, 'notes.txt'), 'checked before it moved\n');
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const download = (server: string, headers = mona.headers) =>
  app.server.inject({
    url: `${apiPaths.fileTransfer('-current-', server, 'root')}?${new URLSearchParams({
      location: path.join(dir, 'notes.txt'),
    })}`,
    headers,
  });

const post = (url: string, payload: object, headers: Record<string, string> = mona.headers) =>
  app.server.inject({ method: 'POST', url, headers, payload });

/** What the console does before the files: a challenge for the server, answered with a code. */
async function passCheck(server: string, headers = mona.headers) {
  const resource = `files:${server}`;
  const challenge = await post(apiPaths.sessionMfaChallenge, { resource }, headers);
  expect(challenge.json().totp_challenge).toBe(true);
  const mfa_response = { totp_code: nextTotp(app, mona.totpSecret!) };
  return post(apiPaths.sessionMfaVerify, { resource, mfa_response }, headers);
}

describe('file transfers under require_session_mfa', () => {
  it('are refused with mfa_required until a check passes for the server', async () => {
    const refused = await download(node);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'mfa_required',
      message:
        'your roles require an MFA check for each session (require_session_mfa): pass one for this server first',
    });
    const asked = await post(apiPaths.mfaRequired('-current-'), {
      node: { node_name: node, login: 'root' },
    });
    expect(asked.json()).toEqual({ required: true });
  });

  it('a wrong code passes nothing, and an application is not checked on its own', async () => {
    const resource = `files:${node}`;
    const wrong = await post(apiPaths.sessionMfaVerify, {
      resource,
      mfa_response: { totp_code: '000000' },
    });
    expect(wrong.statusCode).toBe(403);
    expect((await download(node)).statusCode).toBe(403);
    const app_ = await post(apiPaths.sessionMfaVerify, {
      resource: 'app:grafana.example.com',
      mfa_response: { totp_code: '123456' },
    });
    expect(app_.statusCode).toBe(400);
  });

  it('after a check, transfers to that server start for a minute, from that web session only', async () => {
    const passed = await passCheck(node);
    expect(passed.statusCode, passed.body).toBe(200);
    const lasts = Date.parse(passed.json().expires) - app.clock.now();
    expect(lasts).toBeGreaterThan(55_000);
    expect(lasts).toBeLessThanOrEqual(60_000);

    const first = await download(node);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.body).toBe('checked before it moved\n');
    // The files chosen together: the next one needs no second check.
    expect((await download(node)).statusCode).toBe(200);
    // Another server, or another sign-in of the same user, is not covered.
    expect((await download('other-host')).json().error.code).toBe('mfa_required');
    const otherSession = sessionHeaders(app, await loginWithTotp(app, mona));
    expect((await download(node, otherSession)).json().error.code).toBe('mfa_required');

    app.clock.advance(61_000);
    expect((await download(node)).json().error.code).toBe('mfa_required');
    expect(await readFile(path.join(dir, 'notes.txt'), 'utf8')).toBe('checked before it moved\n');
  });

  it('a lock on the device that answered the check refuses the transfers it let start', async () => {
    // Signed in with no device (as through SSO): the transfers stand on the check's device alone.
    const headers = await app.signIn(['root-access', 'checked'], 'mona');
    expect((await passCheck(node, headers)).statusCode).toBe(200);
    expect((await download(node, headers)).statusCode).toBe(200);
    const { devices } = await app.services.users.store.credentials('mona');
    const lock = await app.services.locks.create(
      { targets: { mfa_device: devices[0]!.id }, message: 'phone lost' },
      hostActor('test'),
    );
    try {
      const refused = await download(node, headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.message).toBe('locked: phone lost');
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });
});

describe('the per-session MFA calls', () => {
  it('need a web session (401)', async () => {
    const calls: [string, object][] = [
      [apiPaths.mfaRequired('-current-'), { node: { node_name: node, login: 'root' } }],
      [apiPaths.sessionMfaChallenge, { resource: `files:${node}` }],
      [apiPaths.sessionMfaVerify, { resource: `files:${node}`, mfa_response: { totp_code: '1' } }],
    ];
    for (const [url, payload] of calls) {
      const res = await post(url, payload, app.csrf.headers);
      expect(res.statusCode, url).toBe(401);
    }
  });

  it('mfa/required answers for the roles, and refuses a body naming no resource (400)', async () => {
    const plain = await app.signIn(['root-access'], 'pat');
    const body = { node: { node_name: node, login: 'root' } };
    expect((await post(apiPaths.mfaRequired('-current-'), body, plain)).json()).toEqual({
      required: false,
    });
    expect((await post(apiPaths.mfaRequired('-current-'), {}, plain)).statusCode).toBe(400);
    expect((await post(apiPaths.mfaRequired('elsewhere'), body, plain)).statusCode).toBe(404);
  });
});
