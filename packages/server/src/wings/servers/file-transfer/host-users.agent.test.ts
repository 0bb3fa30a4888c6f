import { apiPaths, createJoinTokenRequestSchema } from '@postern/contracts';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { runAgent, type RunningAgent } from '../../../agent/agent.js';
import { eventually, recordingLog } from '../../../agent/tunnel-proxy.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';

// Host user creation end to end: a role's create_host_user_mode reaches a real agent (joined
// with a token, over its tunnel) through the proxy's one-session certificate, and the agent
// makes the login's OS user on this machine, as root, before the console's file transfer reads
// a file as it.

let app: TestApp;
let agent: RunningAgent;
let dir: string;
let alice: Record<string, string>;
let forGroup: string;
const login = `pht-${randomBytes(4).toString('hex')}`;
const group = `pht-e2e-${randomBytes(3).toString('hex')}`;

const passwd = (name: string) => {
  try {
    return execFileSync('getent', ['passwd', name], { encoding: 'utf8' });
  } catch {
    return '';
  }
};

beforeAll(async () => {
  app = await createTestApp();
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'made-here' },
      spec: {
        options: { create_host_user_mode: 'insecure-drop' },
        allow: { node_labels: { env: 'hu' }, logins: [login], host_groups: [group] },
      },
    }),
    hostActor('test'),
  );
  await app.services.users.create({ name: 'alice', roles: ['made-here'] }, 'test');
  alice = await app.signIn(['made-here'], 'alice');
  const { port } = await app.listenOnLoopback();
  const token = await app.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['Node'] }),
    hostActor('test'),
  );
  dir = await mkdtemp(path.join(tmpdir(), 'postern-host-users-'));
  // A file only the role's group may read: the transfer reads it only if the user is in it.
  execFileSync('groupadd', ['-f', group]);
  await chmod(dir, 0o755);
  forGroup = path.join(dir, 'for-group.txt');
  await writeFile(forGroup, 'group eyes only\n');
  await chown(
    forGroup,
    0,
    Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]),
  );
  await chmod(forGroup, 0o640);
  agent = await runAgent({
    proxy: `http://127.0.0.1:${port}`,
    token: token.token,
    labels: { env: 'hu' },
    dataDir: path.join(dir, 'agent'),
    insecure: false,
    log: recordingLog(),
  });
  await eventually(() => app.services.tunnels.connected(agent.nodeId), 10_000, 'the tunnel');
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  try {
    execFileSync('userdel', ['--remove', login], { stdio: 'ignore' });
  } catch {
    // deleted by the test, as it should be
  }
  try {
    execFileSync('groupdel', [group], { stdio: 'ignore' });
  } catch {
    // never made
  }
});

describe('create_host_user_mode through the proxy', () => {
  it('makes the login on first use, with its groups, and drops it after', async () => {
    expect(passwd(login)).toBe('');
    const url = `${apiPaths.fileTransfer('-current-', agent.nodeId, login)}?${new URLSearchParams({
      location: forGroup,
    })}`;
    const res = await app.server.inject({ method: 'GET', url, headers: alice });
    // Read as the new user, which could only through the role's group.
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('group eyes only\n');
    // insecure-drop: gone once the transfer's connection ended.
    await eventually(() => passwd(login) === '', 10_000, 'the user to be dropped');
    const audit = await app.audit.search({
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 60_000),
      limit: 100,
    });
    expect(audit.events.some((e) => e.login === login && e.user === 'alice')).toBe(true);
  });

  it('makes none for a login the roles do not give there', async () => {
    const other = `pht-${randomBytes(4).toString('hex')}`;
    const url = `${apiPaths.fileTransfer('-current-', agent.nodeId, other)}?location=/etc/hostname`;
    const res = await app.server.inject({ method: 'GET', url, headers: alice });
    expect(res.statusCode).toBe(403);
    expect(passwd(other)).toBe('');
  });
});
