import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/index.js';
import type { AuditEvent, AuditStore } from '../audit/index.js';
import type { RecordingStore } from '../recordings/recording-store.js';
import { DeadProxyRecovery, proxyLostReason } from './dead-proxy-recovery.js';
import type { SessionTracker } from './session-tracker.store.js';

// On the real clock: the backend expires the claims by it, so a fixed date would let them lapse.
const stopMs = Date.now();
const at = (offsetMs: number) => new Date(stopMs + offsetMs).toISOString();

const tracker = (id: string, proxyId: string): SessionTracker => ({
  kind: 'ssh',
  id,
  login: 'root',
  created: at(-60_000),
  lastActive: at(-55_000),
  serverId: 'node-1',
  serverHostname: 'web-1',
  serverAddr: '127.0.0.1:22',
  clusterName: 'c',
  owner: 'alice',
  ownerRoles: ['access'],
  terminal: { w: 80, h: 24 },
  parties: [{ id: 'p', user: 'alice', mode: 'peer', lastActive: at(-55_000) }],
  moderated: false,
  command: '',
  proxyId,
  expires: at(12 * 3600_000),
  traceId: '',
});

/** Two survivors of the same cluster: one backend, one audit log, one set of trackers. */
function survivors(
  live: string[],
  trackers: SessionTracker[],
  sealed: string[],
  /** Recordings that exist however they were sealed (by another survivor, say). */
  kept: string[] = [],
) {
  const backend = new MemoryBackend();
  const events: AuditEvent[] = [];
  const audit = { emit: async (e: AuditEvent) => void events.push(e) } as unknown as AuditStore;
  const forgotten: string[] = [];
  const recovered: string[][] = [];
  const leaveListeners = new Set<() => void>();
  const make = (id: string, current = true) =>
    new DeadProxyRecovery({
      backend,
      audit,
      now: () => stopMs,
      intervalMs: 3600_000,
      proxies: {
        id,
        isCurrent: () => current,
        list: () => live.map((p) => ({ id: p })),
        onLeave: (listener) => {
          leaveListeners.add(listener);
          return () => leaveListeners.delete(listener);
        },
      },
      sessions: {
        list: () => trackers.filter((t) => !forgotten.includes(t.id)),
        forget: async (sid) => void forgotten.push(sid),
      },
      recordings: {
        recover: async (isLive: (id: string) => boolean) => {
          recovered.push(live.filter((p) => isLive(p)));
          return sealed.splice(0);
        },
        openCast: async (sid: string) => (kept.includes(sid) ? { destroy: () => {} } : undefined),
      } as unknown as RecordingStore,
      onError: (error) => expect.fail(String(error)),
    });
  /** A proxy's record goes: `live` loses it and the registry's listeners are told. */
  const leaves = (proxyId: string) => {
    live.splice(live.indexOf(proxyId), 1);
    for (const listener of leaveListeners) listener();
  };
  return { make, events, forgotten, recovered, leaves, leaveListeners };
}

describe('recovery after a proxy dies', () => {
  it('writes one end event with the error for each lost session, however many survivors look', async () => {
    const cluster = survivors(
      ['b', 'c'],
      [tracker('s1', 'dead'), tracker('s2', 'b'), tracker('s3', 'dead')],
      ['s1'],
    );
    const [b, c] = [cluster.make('b'), cluster.make('c')];
    await Promise.all([b.runOnce(), c.runOnce()]);
    const ends = cluster.events.filter((e) => e.code === 'T2004I');
    expect(ends.map((e) => e.sid).sort()).toEqual(['s1', 's3']);
    expect(ends.find((e) => e.sid === 's1')).toMatchObject({
      event: 'session.end',
      user: 'alice',
      login: 'root',
      server_id: 'node-1',
      error: proxyLostReason,
      participants: ['alice'],
      interactive: true,
      session_start: at(-60_000),
      session_stop: at(0),
      session_recording: 'on',
      lost_proxy: 'dead',
    });
    expect(ends.find((e) => e.sid === 's3')).toMatchObject({ session_recording: 'off' });
    // Sealed by the other survivor (which lost this session's claim): still kept, so 'on'.
    const split = survivors(['b'], [tracker('s9', 'dead')], [], ['s9']);
    await split.make('b').runOnce();
    expect(split.events[0]).toMatchObject({ sid: 's9', session_recording: 'on' });
    // Each kind gets its own end event.
    const lost = survivors(['b'], [{ ...tracker('d1', 'dead'), kind: 'db' }], []);
    await lost.make('b').runOnce();
    expect(lost.events).toEqual([
      expect.objectContaining({ code: 'TDB01I', event: 'db.session.end', sid: 'd1' }),
    ]);
    // The live proxy's session is left alone; the lost ones' trackers are removed.
    expect(cluster.forgotten.sort()).toEqual(['s1', 's3']);
  });

  it('does nothing while its list of proxies cannot be trusted (loading, stale, not announced)', async () => {
    const cluster = survivors([], [tracker('s1', 'b')], ['s1']);
    await cluster.make('a', false).runOnce();
    expect(cluster.events).toEqual([]);
    expect(cluster.recovered).toEqual([]);
    // Trusted, it counts itself live even when its own record is not listed yet.
    const self = survivors([], [tracker('s1', 'a')], []);
    await self.make('a').runOnce();
    expect(self.events).toEqual([]);
  });

  it('looks as soon as a proxy leaves the list, not at the next periodic look', async () => {
    const cluster = survivors(['b', 'dead'], [tracker('s1', 'dead')], ['s1']);
    const b = cluster.make('b');
    b.start();
    cluster.leaves('dead');
    await expect.poll(() => cluster.events.map((e) => e.sid)).toEqual(['s1']);
    await b.close();
    expect(cluster.leaveListeners.size).toBe(0);
  });

  it('a proxy that leaves during a look gets a look of its own right after it', async () => {
    const cluster = survivors(['b', 'x', 'y'], [tracker('s1', 'x'), tracker('s2', 'y')], []);
    const b = cluster.make('b');
    b.start();
    cluster.leaves('x');
    // The first look has read the list (without x); y leaves before it ends.
    cluster.leaves('y');
    await expect.poll(() => cluster.events.map((e) => e.sid).sort()).toEqual(['s1', 's2']);
    expect(cluster.recovered).toEqual([['b', 'y'], ['b']]);
    await b.close();
  });
});
