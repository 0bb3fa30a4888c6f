import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LockWatcher, strictFenceHoldMs } from '../../access-control/locks/lock-watcher.js';
import type { MemoryBackend } from '../../backend/memory.js';
import { failingBackend } from '../../backend/testing/failing-backend.testkit.js';
import { SqliteAuditStore } from '../audit/audit.sqlite.js';
import { backgroundAuditWritten } from '../audit/emit.js';
import type { LiveSession } from './live-session.js';
import { FakeChannel, testSessionInit } from './live-session.testkit.js';
import { MemoryChannel } from './memory-channel.testkit.js';
import type { EndKind, Party } from './party.js';
import { SessionHub } from './session-hub.js';

// `lock: strict` fences live sessions: while the lock view is stale (its storage cannot be
// reached, so a lock written elsewhere may be missing), the sessions of users whose roles ask
// for strict locking end, and their joined parties leave; best_effort users go on with the
// last known locks. A real hub and lock watcher over a storage that goes away (an outage).

class KeepingParty implements Party {
  ended: { reason: string; kind?: EndKind } | undefined;
  constructor(
    readonly id: string,
    readonly user: string,
    readonly mode: ParticipantMode,
    readonly roles: readonly string[] = ['access'],
  ) {}
  output() {}
  event() {}
  sessionData(_session: ActiveSessionJson) {}
  end(reason: string, kind?: EndKind) {
    this.ended = { reason, kind };
  }
}

const backends: MemoryBackend[] = [];
let dir: string;
let storage: ReturnType<typeof failingBackend>;
let locks: LockWatcher;
let audit: SqliteAuditStore;
let hub: SessionHub;
const strictUsers = new Set(['sam', 'sue']);

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-strict-'));
  storage = failingBackend(backends);
  locks = new LockWatcher(storage.backend, Date.now, {
    lockingModeOf: (user) => (strictUsers.has(user) ? 'strict' : 'best_effort'),
  });
  await locks.start();
  audit = new SqliteAuditStore(path.join(dir, 'audit.db'), 'c');
  hub = new SessionHub({
    backend: storage.backend,
    audit,
    locks,
    now: Date.now,
    checkIntervalMs: 10,
  });
  await hub.start();
});

afterEach(async () => {
  storage.outageEnds();
  await hub.close();
  await locks.close();
  await backgroundAuditWritten();
  await audit.close();
  for (const backend of backends.splice(0)) await backend.close();
  await rm(dir, { recursive: true, force: true });
});

async function session(owner: string): Promise<{ session: LiveSession; party: KeepingParty }> {
  const live = hub.create(
    testSessionInit(new FakeChannel(), Date.now(), {
      owner: { user: owner, roles: ['access'] },
      proxyId: hub.proxyId,
      channel: new MemoryChannel(),
    }),
  );
  const party = new KeepingParty(`${owner}-party`, owner, 'peer');
  await live.join(party);
  return { session: live, party };
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const strictReason = /^locked: the lock list cannot be confirmed current right now .*lock: strict/;

describe('lock: strict on live sessions', () => {
  it('ends strict users’ sessions and parties while the lock view is stale, and no others', async () => {
    const alices = await session('alice');
    const sams = await session('sam');
    const sue = new KeepingParty('sue-party', 'sue', 'observer');
    await alices.session.join(sue);
    const bob = new KeepingParty('bob-party', 'bob', 'observer');
    await alices.session.join(bob);
    await new Promise((resolve) => setTimeout(resolve, 50)); // fresh: the hub's checks pass
    expect(sams.session.isEnded).toBe(false);

    storage.outage();
    await until(() => locks.isStale(), 'the lock view to go stale');
    await until(() => sams.session.isEnded, "sam's session to end");
    expect(sams.session.endReason).toMatch(strictReason);
    expect(sams.party.ended?.reason).toMatch(strictReason);
    await until(() => sue.ended !== undefined, 'sue to leave');
    expect(sue.ended?.reason).toMatch(strictReason);
    // best_effort: alice's session and bob go on with the last known locks.
    expect(alices.session.isEnded).toBe(false);
    expect(bob.ended).toBeUndefined();
    expect(alices.session.parties().map((p) => p.user)).toEqual(['alice', 'bob']);

    // Back: once the view is fresh and the fence's hold has passed, a strict user's new session
    // is left alone.
    storage.outageEnds();
    await until(() => !locks.isStale(), 'the lock view to be fresh', 10_000);
    await until(
      () => locks.lockFor({ user: 'sam', roles: ['access'] }) === undefined,
      'the fence to lift',
      strictFenceHoldMs + 2_000,
    );
    const again = await session('sam');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(again.session.isEnded).toBe(false);
  }, 20_000);
});
