import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';

// Moderated sessions (require_session_join) on a real OpenSSH sshd, from the browser terminal and
// from a stock ssh client through the SSH proxy: nothing flows until the moderator is there, the
// owner never moderates their own session, and on_leave pauses or ends it.
let started: SshNodeApp;
let app: TestApp;
let proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let baseUrl: string;
let nodeId: string;
const admin = hostActor('test');

const oversight = (onLeave: 'terminate' | 'pause') => ({
  name: 'oversight',
  filter: 'contains(user.roles, "overseer")',
  kinds: ['ssh'],
  count: 1,
  modes: ['moderator'],
  on_leave: onLeave,
});
const ownSessions = {
  resources: ['session_tracker'],
  verbs: ['list', 'read'],
  where: 'contains(session_tracker.participants, user.metadata.name)',
};

beforeAll(async () => {
  started = await startSshNodeApp();
  ({ app, baseUrl, nodeId } = started);
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      admin,
    );
  const rootOnTest = { node_labels: { env: 'test' }, logins: ['root'], rules: [ownSessions] };
  await role('supervised', { ...rootOnTest, require_session_join: [oversight('terminate')] });
  await role('supervised-pause', { ...rootOnTest, require_session_join: [oversight('pause')] });
  // A filter on the moderator's traits: someone whose rota says on-call.
  await role('supervised-on-call', {
    ...rootOnTest,
    require_session_join: [
      { ...oversight('terminate'), filter: 'contains(user.spec.traits["rota"], "on-call")' },
    ],
  });
  await role('overseer', {
    join_sessions: [
      {
        name: 'moderate',
        roles: ['supervised', 'supervised-pause', 'supervised-on-call'],
        kinds: ['ssh'],
        modes: ['moderator', 'observer'],
      },
    ],
    rules: [{ resources: ['session_tracker'], verbs: ['list', 'read'] }],
  });
  for (const [name, roles] of [
    ['alice', ['supervised']],
    ['carol', ['supervised-pause']],
    ['bob', ['overseer']],
    ['dave', ['supervised-on-call']],
  ] as const) {
    await app.services.users.create({ name, roles: [...roles] }, 'test');
  }
  await app.services.users.create(
    { name: 'erin', roles: ['overseer'], traits: { rota: ['on-call', 'week'] } },
    'test',
  );
  await app.services.users.create(
    { name: 'frank', roles: ['overseer'], traits: { rota: ['day'] } },
    'test',
  );
  proxy = await startTestSshProxy(app);
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await started?.close();
});

const open = async (user: string, roles: string[], params: object) =>
  openTerminal({
    baseUrl,
    headers: await app.signIn(roles, user),
    params: { term: { w: 80, h: 24 }, ...params } as never,
  });

const sidOf = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionData);
  return (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;
};
const endReason = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionEnd);
  return frame ? (JSON.parse(frame.payload) as { reason: string }).reason : '';
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waiting = 'this session needs 1 moderator matching contains(user.roles, "overseer")';

describe('moderated sessions in the browser terminal', () => {
  it('holds input and output until the moderator joins, and ends when they leave', async () => {
    const owner = await open('alice', ['supervised'], { server_id: nodeId, login: 'root' });
    expect(owner.response.status).toBe('ok');
    await owner.waitForOutput(waiting);
    expect(owner.output()).toContain('Joined: nobody yet. Waiting');
    owner.type('echo early-$((2*3))\r');
    await pause(500);
    // No prompt and no command: the node's first bytes are held as well.
    expect(owner.output()).not.toMatch(/[#$] $/m);
    expect(owner.output()).not.toContain('early-6');
    const sid = sidOf(owner);
    const listed = await app.server.inject({
      url: '/v1/webapi/sites/-current-/sessions',
      headers: await app.signIn(['overseer'], 'bob'),
    });
    const tracker = listed.json().sessions.find((s: { id: string }) => s.id === sid);
    expect(tracker).toMatchObject({ moderated: true, participantModes: ['observer', 'moderator'] });

    // The owner cannot moderate (nor observe) their own session.
    const self = await open('alice', ['supervised'], { sid, mode: 'moderator' });
    await self.closed;
    expect(self.frames.find((f) => f.type === T.error)?.payload).toContain(
      'you may join this session as peer',
    );

    const moderator = await open('bob', ['overseer'], { sid, mode: 'moderator' });
    await owner.waitForOutput('bob (moderator) joined: the session starts.');
    await owner.waitForOutput(/[#$] $/m);
    owner.type('echo started-$((5*5))\r');
    await owner.waitForOutput('started-25');
    await moderator.waitForOutput('started-25');
    // The moderator's keystrokes never reach the node.
    moderator.type('echo typed-by-moderator\r');
    await pause(300);
    expect(owner.output()).not.toContain('typed-by-moderator');
    expect(owner.output()).not.toContain('early-6');

    moderator.close();
    await owner.closed;
    expect(endReason(owner)).toBe('the last required moderator left the session');
    const events = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 1000,
    });
    const ofSession = events.events.filter((e) => e.sid === sid);
    expect(ofSession.find((e) => e.code === 'T2001I')).toMatchObject({
      user: 'bob',
      mode: 'moderator',
    });
    expect(ofSession.find((e) => e.code === 'TPOS050I')).toMatchObject({
      state: 'started',
      moderators: ['bob (moderator)'],
    });
    expect(events.events.find((e) => e.code === 'T1006W' && e.sid === sid)).toMatchObject({
      user: 'alice',
      mode: 'moderator',
    });
  });

  it('pauses when the moderator leaves (on_leave: pause), resumes on their return, and the moderator ends it with t', async () => {
    const owner = await open('carol', ['supervised-pause'], { server_id: nodeId, login: 'root' });
    await owner.waitForOutput(waiting);
    const sid = sidOf(owner);
    const first = await open('bob', ['overseer'], { sid, mode: 'moderator' });
    await owner.waitForOutput(/[#$] $/m);
    first.close();
    await owner.waitForOutput('paused until 1 moderator matching');
    owner.type('echo while-paused-$((3*3))\r');
    await pause(500);
    expect(owner.output()).not.toContain('while-paused-9');

    const again = await open('bob', ['overseer'], { sid, mode: 'moderator' });
    await owner.waitForOutput('the session resumes.');
    owner.type('echo resumed-$((4*4))\r');
    await owner.waitForOutput('resumed-16');
    expect(owner.output()).not.toContain('while-paused-9');

    again.type('t');
    await owner.closed;
    expect(endReason(owner)).toBe('terminated by moderator bob');
  });
});

describe('a moderation filter on traits', () => {
  it('counts a moderator whose user record has the trait, and not one without', async () => {
    const owner = await open('dave', ['supervised-on-call'], { server_id: nodeId, login: 'root' });
    await owner.waitForOutput('Waiting');
    const sid = sidOf(owner);
    const day = await open('frank', ['overseer'], { sid, mode: 'moderator' });
    await pause(500);
    expect(owner.output()).not.toContain('joined: the session starts');
    const onCall = await open('erin', ['overseer'], { sid, mode: 'moderator' });
    await owner.waitForOutput('erin (moderator) joined: the session starts.');
    expect(owner.output()).not.toContain('frank (moderator) joined');
    for (const client of [onCall, day, owner]) client.close();
  });
});

describe('moderated sessions through the SSH proxy', () => {
  let aliceSsh: OpenSshClientSetup;
  let bobSsh: OpenSshClientSetup;
  beforeAll(async () => {
    const port = proxy.address.port;
    aliceSsh = await openSshClient({
      ca: app.services.ca,
      user: 'alice',
      roles: ['supervised'],
      logins: ['root'],
      proxyPort: port,
    });
    bobSsh = await openSshClient({
      ca: app.services.ca,
      user: 'bob',
      roles: ['overseer'],
      logins: [],
      proxyPort: port,
    });
  });
  afterAll(async () => {
    await aliceSsh?.remove();
    await bobSsh?.remove();
  });

  const collect = (child: ChildProcessWithoutNullStreams) => {
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    return {
      text: () => text,
      async until(pattern: string | RegExp, ms = 10_000) {
        const deadline = Date.now() + ms;
        const test = (t: string) =>
          typeof pattern === 'string' ? t.includes(pattern) : pattern.test(t);
        while (!test(text)) {
          if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in: ${text}`);
          await pause(25);
        }
      },
    };
  };

  it('makes a stock ssh session wait for a moderator who joins with ssh … join SID moderator', async () => {
    const before = new Set(app.services.hub.list().map((t) => t.id));
    const owner = aliceSsh.spawn('ssh', ['-tt', 'root@sshd-host']);
    const ownerOut = collect(owner);
    await ownerOut.until(waiting);
    const sid = app.services.hub.list().find((t) => !before.has(t.id) && t.owner === 'alice')!.id;
    owner.stdin.write('echo early-$((2*3))\n');
    await pause(300);
    expect(ownerOut.text()).not.toContain('early-6');

    const moderator = bobSsh.spawn('ssh', ['-tt', 'proxy', `join ${sid} moderator`]);
    const moderatorOut = collect(moderator);
    await moderatorOut.until(`joined session ${sid} as moderator`);
    await ownerOut.until('bob (moderator) joined: the session starts.');
    owner.stdin.write('echo via-ssh-$((4*4))\n');
    await ownerOut.until('via-ssh-16');
    await moderatorOut.until('via-ssh-16');
    expect(ownerOut.text()).not.toContain('early-6');

    moderator.stdin.write('\x03'); // Ctrl-C: the moderator leaves; on_leave ends the session
    // 'close', not 'exit': the proxy's last words may still be in the pipe when ssh exits.
    const code = await new Promise<number | null>((resolve) => owner.on('close', resolve));
    expect(code).not.toBe(0);
    expect(ownerOut.text()).toContain('the last required moderator left the session');
  });

  it('refuses what moderators could not watch: a command without a terminal, sftp, port forwarding', async () => {
    const command = await aliceSsh.run('ssh', ['-T', 'root@sshd-host', 'echo unseen']);
    expect(command.code).not.toBe(0);
    expect(command.stdout).not.toContain('unseen');
    expect(command.stderr).toContain(
      'a command without a terminal is not allowed: your sessions need 1 moderator',
    );
    const sftp = await aliceSsh.run('sftp', ['-b', '-', 'root@sshd-host'], 'ls\n');
    expect(sftp.code).not.toBe(0);
  });
});
