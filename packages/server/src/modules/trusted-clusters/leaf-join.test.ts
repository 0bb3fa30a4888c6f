import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { clusters } from '../../cli/login/clusters-command.js';
import * as postern from '../../cli/login/ssh-commands.js';
import { addSessionsCommands } from '../../cli/sessions/sessions.commands.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { startRootAndLeaf, type RootAndLeaf } from './ssh-through-root.testkit.js';

/**
 * Joining a leaf's live session from the root's command line (docs/trusted-clusters.md): `postern
 * sessions ls --cluster leaf` lists it through the root's forwarder, and `postern join --cluster
 * leaf SID` runs the real ssh through the root's jump host to the leaf's own SSH proxy
 * (`_proxy.leaf`), whose join_sessions rules, with the roles the role map gave, decide.
 */
describe('postern join --cluster: a leaf session, from the root', () => {
  let world: RootAndLeaf;
  const homes: string[] = [];
  const children: ChildProcess[] = [];

  /** Output of a process as it comes, and a wait for a text in it. */
  const collect = (child: ChildProcess) => {
    let text = '';
    child.stdout?.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (text += d.toString()));
    return {
      text: () => text,
      until: (wanted: string) => eventually(() => text.includes(wanted), 15_000, wanted),
    };
  };

  beforeAll(async () => {
    world = await startRootAndLeaf(
      (leafRole) => `[{remote: access, local: [${leafRole}, watcher]}]`,
    );
    await createRole(world.leaf.app, 'watcher', {
      allow: {
        join_sessions: [
          { name: 'watch', roles: [world.leaf.role], kinds: ['ssh'], modes: ['observer'] },
        ],
        rules: [{ resources: ['session_tracker'], verbs: ['list', 'read'] }],
      },
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill();
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
    await world?.stop();
  });

  it("lists the leaf's session and watches it through the root, audited on both sides", async () => {
    const { leaf, root } = world;
    const alice = await world.clientOf('alice', ['access']);
    const bob = await world.clientOf('bob', ['access']);
    const owner = alice.spawn('ssh', ['-tt', 'root@test-host.leaf']);
    children.push(owner);
    const ownerOut = collect(owner);
    owner.stdin.write('echo owner-ready-$((1+1))\n');
    await ownerOut.until('owner-ready-2');
    const sid = leaf.app.services.hub.list().find((t) => t.owner === 'alice')!.id;

    // bob's POSTERN_HOME as `postern login` on the root leaves it, with his ssh_config.
    const { home } = await signedInHome(root, world.rootPort, 'bob', ['access']);
    homes.push(home);
    await copyFile(bob.configFile, path.join(home, 'ssh_config'));
    const env = { POSTERN_HOME: home };
    const printed: string[] = [];
    const program = new Command().exitOverride();
    addSessionsCommands(program, { env, print: (line) => printed.push(line) });
    await program.parseAsync(['sessions', 'ls', '--cluster', 'leaf'], { from: 'user' });
    const listing = printed.join('\n');
    expect(listing).toMatch(
      new RegExp(`${sid}\\s+ssh\\s+test-host \\(root\\)\\s+alice\\b.*observer`),
    );
    expect(listing).toContain('Join one with: postern join --cluster leaf ID');
    // `postern clusters` names the leaf for --cluster.
    const clusterLines: string[] = [];
    await clusters(env, (line) => clusterLines.push(line));
    expect(clusterLines.join('\n')).toMatch(/^root\s+root\s+online\s+\d+\s+\*$/m);
    expect(clusterLines.join('\n')).toMatch(/^leaf\s+leaf\s+online\s+1\s*$/m);

    let watcher: ReturnType<typeof collect> | undefined;
    let ran: string[] = [];
    const joined = postern.join(
      env,
      sid,
      undefined,
      (program, args) => {
        ran = args;
        // INFO: a refusal's reason reaches stderr, so a failure says why.
        const child = spawn(program, ['-o', 'LogLevel=INFO', ...args]);
        children.push(child);
        watcher = collect(child);
        return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
      },
      () => Promise.reject(new Error('no per-session MFA here')),
      'leaf',
    );
    await eventually(() => watcher !== undefined, 10_000, 'ssh started');
    await watcher!.until(`joined session ${sid} as observer`);
    expect(ran).toEqual(expect.arrayContaining(['-t', 'bob@_proxy.leaf', `join ${sid}`]));
    expect(ran).not.toContain('-p');
    owner.stdin.write('echo seen-by-bob-$((6*7))\n');
    await watcher!.until('seen-by-bob-42');
    // Ctrl-C: an observer leaves; the session goes on.
    const child = children.at(-1)!;
    child.stdin?.write('\x03');
    expect(await joined).not.toBe(255);
    await eventually(
      async () =>
        (await world.leafEvents()).some((e) => e.event === 'session.join' && e.user === 'bob'),
      15_000,
      "bob's join on the leaf",
    );
    const hop = (await world.rootEvents()).find((e) => e.code === 'TPOS060I' && e.user === 'bob');
    expect(hop).toMatchObject({ cluster: 'leaf', server: '_proxy.leaf:22' });
    // The leaf's join_sessions rules decide the mode: bob may only watch.
    const moderate = await world.ssh(bob, '_proxy.leaf', `join ${sid} moderator`, [
      '-tt',
      '-l',
      'bob',
    ]);
    expect(moderate.code).not.toBe(0);
    expect(moderate.stdout + moderate.stderr).toContain('you may join this session as observer');
  });

  it('a session the leaf does not hold is refused, saying so', async () => {
    const carol = await world.clientOf('carol', ['access']);
    const result = await world.ssh(
      carol,
      '_proxy.leaf',
      'join 00000000-0000-4000-8000-000000000000',
      ['-tt', '-l', 'carol'],
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('session 00000000-0000-4000-8000-000000000000 is not found');
  });
});
