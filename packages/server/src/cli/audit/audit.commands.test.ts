import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths } from '@postern/contracts';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { addAuditCommands } from './audit.commands.js';

// `postern audit search` and `postern audit export` against a listening test proxy, signed in as
// an auditor (who may list events) and as a user of the access preset (who may not).

let app: TestApp;
let auditorHome: string;
let userHome: string;
let dir: string;
const base = Date.now() - 3_600_000;
const at = (minutes: number) => new Date(base + minutes * 60_000);

const emit = (minutes: number, event: string, code: string, fields: object = {}) =>
  app.audit.emit({ event, code, time: at(minutes), ...fields });

beforeAll(async () => {
  app = await createTestApp();
  await app.services.users.create({ name: 'audrey', roles: ['auditor'] }, 'test');
  await app.services.users.create({ name: 'alice', roles: ['access'] }, 'test');
  const { port } = await app.listenOnLoopback();
  ({ home: auditorHome } = await signedInHome(app, port, 'audrey', ['auditor']));
  ({ home: userHome } = await signedInHome(app, port, 'alice', ['access']));
  dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-export-'));
  await emit(1, 'user.login', 'T1000I', { user: 'alice', method: 'local', success: true });
  await emit(2, 'session.start', 'T2000I', {
    user: 'alice',
    login: 'root',
    server_hostname: 'web-1',
  });
  await emit(3, 'session.end', 'T2004I', {
    user: 'alice',
    login: 'root',
    server_hostname: 'web-1',
  });
});
afterAll(async () => {
  await app?.close();
  for (const home of [auditorHome, userHome, dir]) {
    if (home) await rm(home, { recursive: true, force: true });
  }
});

/** Runs `postern <args>` as the user of `home`: the lines printed and the lines exported. */
async function postern(args: string[], options: { home?: string; rounds?: number } = {}) {
  const lines: string[] = [];
  const exported: Record<string, unknown>[] = [];
  let rounds = 0;
  const program = new Command('postern').exitOverride();
  const home = options.home ?? auditorHome;
  addAuditCommands(program, {
    env: { POSTERN_HOME: home, HOME: home },
    print: (line) => lines.push(line),
    write: async (text) => {
      for (const line of text.split('\n').filter(Boolean)) exported.push(JSON.parse(line));
    },
    sleep: async () => {
      rounds += 1;
      // Between rounds of --follow: a new event, stored now though it happened a day ago.
      const time = new Date(Date.now() - 24 * 3_600_000);
      await app.audit.emit({ event: 'user.login', code: 'T1000I', time, user: `late-${rounds}` });
    },
    stopped: () => rounds >= (options.rounds ?? 0),
  });
  await program.parseAsync(['node', 'postern', ...args]);
  return { lines, exported };
}

describe('postern audit search', () => {
  it('shows the latest events newest first, with the Audit Log’s messages', async () => {
    const { lines } = await postern(['audit', 'search', '--since', '2h']);
    expect(lines[0]).toMatch(/^TIME\s+TYPE\s+CODE\s+USER\s+MESSAGE/);
    const rows = lines.slice(1).filter((line) => line.split(/\s+/)[3] === 'alice');
    expect(rows.map((line) => line.split(/\s+/)[1])).toEqual([
      'session.end',
      'session.start',
      'user.login',
    ]);
    expect(rows[0]).toContain('T2004I');
  });

  it('narrows by type, text and limit, and prints JSON on request', async () => {
    const typed = await postern(['audit', 'search', '--type', 'session.start', '--format', 'json']);
    const events = JSON.parse(typed.lines.join('\n')) as { event: string }[];
    expect(events.map((event) => event.event)).toEqual(['session.start']);
    const text = await postern(['audit', 'search', '--search', 'web-1', '--limit', '1']);
    expect(text.lines.slice(1)).toHaveLength(1);
    expect(text.lines[1]).toContain('session.end');
    await expect(postern(['audit', 'search', '--format', 'xml'])).rejects.toThrow(/--format/);
  });

  it('is refused to a user whose roles may not list events, and unsigned calls are 401', async () => {
    await expect(postern(['audit', 'search'], { home: userHome })).rejects.toThrow(/denied/);
    const unsigned = await app.server.inject({ url: apiPaths.cliEvents });
    expect(unsigned.statusCode).toBe(401);
  });
});

describe('postern audit export', () => {
  const ours = (events: Record<string, unknown>[]) =>
    events.filter((event) => String(event.user ?? '').match(/^(alice|late-)/));

  it('writes every event in the order stored, and goes on from its cursor without repeats', async () => {
    const cursor = path.join(dir, 'cursor.json');
    const first = await postern(['audit', 'export', '--since', '2h', '--cursor', cursor]);
    expect(ours(first.exported).map((event) => event.event)).toEqual([
      'user.login',
      'session.start',
      'session.end',
    ]);
    const saved = JSON.parse(await readFile(cursor, 'utf8')) as { startKey: string };
    expect(saved.startKey).toBeTruthy();

    // One that happened half an hour before them all but is stored only now (a proxy's spool
    // drained after an outage), and a new one: both come next, in the order stored.
    await emit(-30, 'user.login', 'T1000I', { user: 'alice-spooled' });
    await emit(5, 'session.start', 'T2000I', { user: 'alice', login: 'ubuntu' });
    const second = await postern(['audit', 'export', '--since', '2h', '--cursor', cursor]);
    expect(second.exported.map((event) => [event.event, event.user, event.login])).toEqual([
      ['user.login', 'alice-spooled', undefined],
      ['session.start', 'alice', 'ubuntu'],
    ]);
    expect((await postern(['audit', 'export', '--cursor', cursor])).exported).toEqual([]);
  });

  it('follows new events as they are stored, whenever they happened', async () => {
    const cursor = path.join(dir, 'follow.json');
    await app.audit.emit({ event: 'user.login', code: 'T1000I', user: 'late-now' });
    const { exported } = await postern(
      ['audit', 'export', '--since', '30m', '--cursor', cursor, '--follow'],
      // Stopped during the third wait: late-3, stored then, is left for the next start.
      { rounds: 3 },
    );
    const users = exported.map((event) => event.user);
    expect(users.filter((user) => String(user).startsWith('late-'))).toEqual([
      'late-now',
      'late-1',
      'late-2',
    ]);
    const next = await postern(['audit', 'export', '--cursor', cursor]);
    expect(next.exported.map((event) => event.user)).toEqual(['late-3']);
  });

  it('goes on from a cursor file of the release that kept a time', async () => {
    const cursor = path.join(dir, 'by-time.json');
    const later = Date.now() + 3_600_000;
    await app.audit.emit({ event: 'user.login', code: 'T1000I', time: new Date(later), user: 'x' });
    await emit(6, 'session.end', 'T2004I', { user: 'alice', login: 'ubuntu' });
    await writeFile(cursor, JSON.stringify({ time: new Date(later).toISOString(), uids: ['u'] }));
    // From the first event stored that happened at that time or later, then all stored after it.
    const { exported } = await postern(['audit', 'export', '--cursor', cursor]);
    expect(exported.map((event) => [event.event, event.user])).toEqual([
      ['user.login', 'x'],
      ['session.end', 'alice'],
    ]);
    const saved = JSON.parse(await readFile(cursor, 'utf8')) as { startKey?: string };
    expect(saved.startKey).toBeTruthy();
  });

  it('refuses a cursor file it did not write, and a position the proxy did not sign', async () => {
    const bogus = path.join(dir, 'bogus.json');
    await writeFile(bogus, '{"at": 1}');
    await expect(postern(['audit', 'export', '--cursor', bogus])).rejects.toThrow(
      /not a cursor postern audit export wrote/,
    );
    await writeFile(bogus, '{"startKey": "eyJ0IjowLCJpZCI6IjEifQ"}');
    await expect(postern(['audit', 'export', '--cursor', bogus])).rejects.toThrow(
      /invalid startKey/,
    );
  });

  it('is refused to a user whose roles may not list events, and unsigned calls are 401', async () => {
    await expect(postern(['audit', 'export'], { home: userHome })).rejects.toThrow(/denied/);
    const unsigned = await app.server.inject({ url: apiPaths.cliEventsExport });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.body).not.toMatch(/startKey|events/);
  });
});
