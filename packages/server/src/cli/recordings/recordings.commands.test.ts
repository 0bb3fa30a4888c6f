import { rm } from 'node:fs/promises';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSealedRecording } from '../../modules/recordings/recording-fixture.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { playRecording, type PlayTarget } from './play.js';
import type { RecordingsClient } from './recordings-client.js';
import { addRecordingsCommands } from './recordings.commands.js';

// `postern recordings ls` and `postern play` against a listening test proxy, as a signed-in
// auditor; play's clock is the test's, so its pacing is checked without waiting for it.
let app: TestApp;
let home: string;
const sid = '9b1c2d3e-aaaa-4bbb-8ccc-123456789abc';
const cast = [
  '{"version":2,"width":100,"height":30,"timestamp":1,"env":{},"title":"web-1"}',
  '[0.5,"o","$ ls\\r\\n"]',
  '[10.5,"r","120x40"]',
  '[12.5,"o","done\\r\\n"]',
  '',
].join('\n');

beforeAll(async () => {
  app = await createTestApp();
  await app.services.users.create({ name: 'audrey', roles: ['auditor'] }, 'test');
  await writeSealedRecording(app, sid, cast, {
    participants: ['alice'],
    durationMs: 12_000,
    endedAt: new Date(Date.now() - 3 * 3_600_000),
  });
  const { port } = await app.listenOnLoopback();
  ({ home } = await signedInHome(app, port, 'audrey', ['auditor']));
});
afterAll(async () => {
  await app?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

/** Runs `postern <args>`: the lines printed, what play wrote (and when), and any damage told. */
async function postern(args: string[]) {
  const lines: string[] = [];
  const written: { at: number; data: string }[] = [];
  const damage: string[] = [];
  let now = 0;
  const out: PlayTarget = {
    write: (data) => void written.push({ at: now, data }),
    sleep: async (ms) => void (now += ms),
    now: () => now,
  };
  const program = new Command('postern').exitOverride();
  addRecordingsCommands(program, {
    env: { POSTERN_HOME: home, HOME: home },
    print: (line) => lines.push(line),
    out,
    damaged: (message) => damage.push(message),
  });
  await program.parseAsync(['node', 'postern', ...args]);
  return { lines, written, damage };
}

describe('postern recordings ls', () => {
  it('lists the recent sessions with their recordings', async () => {
    const { lines } = await postern(['recordings', 'ls']);
    expect(lines[0]).toMatch(/^SID\s+TYPE\s+USERS\s+HOST\s+LOGIN\s+ENDED\s+DURATION/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(`^${sid}\\s+ssh\\s+alice\\s+web-1\\s+root\\s+\\S+\\s+12s$`),
    );
  });

  it('finds none before its --since (it ended 3 h ago), and refuses a bad one', async () => {
    expect((await postern(['recordings', 'ls', '--since', '1h'])).lines).toEqual([
      'No recordings in that time.',
    ]);
    expect((await postern(['recordings', 'ls', '--since', '1d'])).lines).toHaveLength(2);
    await expect(postern(['recordings', 'ls', '--since', 'soon'])).rejects.toThrow(/--since/);
  });
});

describe('postern play', () => {
  it('writes the output at its pace, faster with --speed, idle cut with --max-idle', async () => {
    const real = await postern(['play', sid]);
    expect(real.written).toEqual([
      { at: 500, data: '$ ls\r\n' },
      { at: 12_500, data: 'done\r\n' },
    ]);
    const fast = await postern(['play', sid, '--speed', '2']);
    expect(fast.written.map((w) => w.at)).toEqual([250, 6250]);
    const brisk = await postern(['play', sid, '--max-idle', '1s']);
    // 0.5 s, then each longer pause cut to 1 s: the 10 s before the resize, the 2 s after it.
    expect(brisk.written.map((w) => w.at)).toEqual([500, 2500]);
    await expect(postern(['play', sid, '--speed', '0'])).rejects.toThrow(/--speed/);
  });

  it('prints asciicast v2 with --format cast', async () => {
    const { written } = await postern(['play', sid, '--format', 'cast']);
    const lines = written
      .map((w) => w.data)
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { version: 2, width: 100, height: 30, title: 'web-1' },
      [0.5, 'o', '$ ls\r\n'],
      [10.5, 'r', '120x40'],
      [12.5, 'o', 'done\r\n'],
    ]);
  });

  it('says so for a recording it may not read', async () => {
    await expect(postern(['play', 'no-such-session'])).rejects.toThrow(/not found/);
  });

  it('plays a damaged recording up to the damage, and says why it stopped', async () => {
    // The server's side of a damaged recording is tested with the player (recordings.routes);
    // here only what play does with the chunk that reports it.
    const damaged: RecordingsClient = {
      list: () => Promise.reject(new Error('not used')),
      info: async () => ({
        sid: 's',
        durationMs: 1000,
        incomplete: false,
        cols: 80,
        rows: 24,
        title: '',
        castBytes: 100,
        keyframeTimes: [],
        marks: [],
      }),
      events: async () => ({
        events: [[0.1, 'o', 'before']],
        next: null,
        damaged: { t: 0.1, message: 'chunk 1 was altered' },
      }),
    };
    const written: string[] = [];
    const out: PlayTarget = {
      write: (data) => void written.push(data),
      sleep: async () => undefined,
      now: () => 0,
    };
    const why = await playRecording(damaged, 's', { speed: 1, format: 'text' }, out);
    expect(written).toEqual(['before']);
    expect(why).toBe('the recording is damaged after 0.1s: chunk 1 was altered');
  });
});
