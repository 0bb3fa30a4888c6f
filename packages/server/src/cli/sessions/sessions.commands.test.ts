import { rm } from 'node:fs/promises';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  SessionTrackerStore,
  type SessionTracker,
} from '../../modules/sessions/session-tracker.store.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { addSessionsCommands } from './sessions.commands.js';

// `postern sessions ls` against a listening test proxy whose hub holds two trackers (as another
// proxy's sessions arrive, through storage): each user sees the sessions the console shows them.
let app: TestApp;
const homes: Record<string, string> = {};

const tracker = (id: string, owner: string, created: string): SessionTracker => ({
  kind: 'ssh',
  id,
  login: 'root',
  created,
  lastActive: created,
  serverId: 'node-1',
  serverHostname: 'web-1',
  serverAddr: '127.0.0.1:22',
  clusterName: 'test-cluster',
  owner,
  ownerRoles: ['access'],
  terminal: { w: 80, h: 24 },
  parties: [{ id: `${id}-p`, user: owner, mode: 'peer', lastActive: created }],
  moderated: false,
  command: '',
  proxyId: 'another-proxy',
  expires: new Date(Date.now() + 3_600_000).toISOString(),
  traceId: '',
});

const alices = '11111111-aaaa-4bbb-8ccc-000000000001';
const bobs = '22222222-aaaa-4bbb-8ccc-000000000002';

beforeAll(async () => {
  app = await createTestApp();
  await app.services.users.create({ name: 'alice', roles: ['access'] }, 'test');
  await app.services.users.create({ name: 'audrey', roles: ['auditor'] }, 'test');
  const store = new SessionTrackerStore(app.backend);
  const now = Date.now();
  await store.put(tracker(alices, 'alice', new Date(now - 60_000).toISOString()), 3_600_000, now);
  // bob's connection dropped: his session waits for his client to resume it.
  const bobsSession = tracker(bobs, 'bob', new Date(now - 30_000).toISOString());
  bobsSession.parties[0]!.connectionLostAt = new Date(now - 5_000).toISOString();
  await store.put(bobsSession, 3_600_000, now);
  await vi.waitFor(() => expect(app.services.hub.list()).toHaveLength(2));
  const { port } = await app.listenOnLoopback();
  for (const [user, role] of [
    ['alice', 'access'],
    ['audrey', 'auditor'],
  ] as const) {
    homes[user] = (await signedInHome(app, port, user, [role])).home;
  }
});
afterAll(async () => {
  await app?.close();
  for (const home of Object.values(homes)) await rm(home, { recursive: true, force: true });
});

async function sessionsLs(user: string): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command('postern').exitOverride();
  addSessionsCommands(program, {
    env: { POSTERN_HOME: homes[user], HOME: homes[user] },
    print: (line) => lines.push(line),
  });
  await program.parseAsync(['node', 'postern', 'sessions', 'ls']);
  return lines;
}

describe('postern sessions ls', () => {
  it("lists the user's own sessions only, with the modes to join in and the command", async () => {
    const lines = await sessionsLs('alice');
    expect(lines[0]).toMatch(/^ID\s+KIND\s+TARGET\s+USERS\s+STARTED\s+YOU MAY JOIN AS$/);
    expect(lines.slice(1, -2)).toEqual([
      expect.stringMatching(
        new RegExp(`^${alices}\\s+ssh\\s+web-1 \\(root\\)\\s+alice\\s+\\S+Z\\s+peer$`),
      ),
    ]);
    expect(lines.join('\n')).not.toContain(bobs);
    expect(lines.at(-1)).toBe('Join one with: postern join ID [--mode observer|moderator|peer]');
  });

  it('lists every session, newest first, to a user whose roles read session trackers, marking a user whose connection dropped', async () => {
    const lines = await sessionsLs('audrey');
    const ids = lines.slice(1).map((line) => line.split(/\s+/)[0]);
    expect(ids.slice(0, 2)).toEqual([bobs, alices]);
    expect(lines[1]).toMatch(/\s+bob\(lost\)\s+/);
    expect(lines[2]).toMatch(/\s+alice\s+/);
  });
});
