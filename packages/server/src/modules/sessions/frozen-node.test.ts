import { readFileSync } from 'node:fs';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../testing/terminal-fixture.testkit.js';

// A node that stops answering (its sshd frozen with SIGSTOP, as a hung host would be) is noticed
// by SSH keepalives: the session ends with the reason and its recording is sealed.
let fixture: TerminalFixture;
const keepaliveMs = 1_000;
const frozen: number[] = [];

beforeAll(async () => {
  fixture = await startTerminalFixture({ sshKeepaliveIntervalMs: keepaliveMs });
}, 60_000);

afterAll(async () => {
  for (const pid of frozen) signal(pid, 'SIGCONT');
  await fixture?.close();
});

/** Every process below `pid` (sshd forks, then re-executes, per connection). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

describe('a node that stops answering', () => {
  it('ends the session within three keepalive intervals and seals its recording', async () => {
    const { app, sshd } = fixture;
    const alice = await app.signIn([fixture.role], 'alice');
    const client = await fixture.open(alice);
    await client.waitForOutput(/[#$] $/m);
    client.type('echo "before=$((2+3))"\r');
    await client.waitForOutput('before=5');
    const frame = client.frames.find((f) => f.type === T.sessionData);
    const sid = (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;

    const sessionProcesses = descendants(sshd.pid);
    expect(sessionProcesses.length).toBeGreaterThan(0);
    const stoppedAt = Date.now();
    for (const pid of sessionProcesses) {
      frozen.push(pid);
      signal(pid, 'SIGSTOP');
    }
    const closed = await client.closed;
    const took = Date.now() - stoppedAt;
    // Three intervals (3 s), plus room for a loaded machine; without keepalives it never ends.
    expect(took).toBeLessThan(8 * keepaliveMs);
    expect(took).toBeGreaterThanOrEqual(2 * keepaliveMs);
    expect(closed.code).toBe(1000);
    const end = client.frames.find((f) => f.type === T.sessionEnd);
    expect(JSON.parse(end!.payload)).toEqual({ reason: 'the server stopped answering' });

    let index;
    for (let i = 0; i < 100 && !index; i++) {
      index = await app.services.recordings.readIndex(sid);
      if (!index) await new Promise((r) => setTimeout(r, 50));
    }
    expect(index).toMatchObject({ sealed: true, incomplete: false, participants: ['alice'] });
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 3_600_000),
      limit: 1000,
    });
    expect(events.find((e) => e.code === 'T2004I' && e.sid === sid)).toMatchObject({
      reason: 'the server stopped answering',
      session_recording: 'on',
    });
    for (const pid of sessionProcesses) signal(pid, 'SIGCONT');
  });
});
