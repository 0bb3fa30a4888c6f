import { describe, expect, it } from 'vitest';
import { openBackend } from '../../backend/index.js';
import {
  activeSessionsPrefix,
  SessionTrackerStore,
  type SessionTracker,
} from './session-tracker.store.js';

const created = '2026-11-26T10:00:00.000Z';
const tracker: SessionTracker = {
  kind: 'app',
  id: 'sid-1',
  login: '',
  created,
  lastActive: created,
  serverId: 'wiki',
  serverHostname: 'wiki',
  serverAddr: 'wiki.proxy.test',
  clusterName: 'c',
  owner: 'carol',
  ownerRoles: ['apps'],
  terminal: { w: 0, h: 0 },
  parties: [{ id: 'sid-1', user: 'carol', mode: 'peer', lastActive: created }],
  moderated: false,
  command: '',
  proxyId: 'p1',
  expires: '2026-11-26T22:00:00.000Z',
  traceId: '',
};

describe('SessionTrackerStore.touch', () => {
  it('sets the last activity of a stored tracker and its parties, keeping its expiry', async () => {
    const backend = await openBackend({ type: 'memory' });
    const store = new SessionTrackerStore(backend);
    const now = Date.now();
    await store.put(tracker, 60_000, now);
    await store.touch('sid-1', '2026-11-26T10:05:00.000Z');
    const item = await backend.get(activeSessionsPrefix + 'sid-1');
    const touched = JSON.parse(item!.value) as SessionTracker;
    expect(touched.lastActive).toBe('2026-11-26T10:05:00.000Z');
    expect(touched.parties[0]!.lastActive).toBe('2026-11-26T10:05:00.000Z');
    expect(item!.expires!.getTime()).toBe(now + 60_000);
  });

  it('never brings back the tracker of a session that ended', async () => {
    const backend = await openBackend({ type: 'memory' });
    const store = new SessionTrackerStore(backend);
    await store.put(tracker, 60_000, Date.now());
    await store.remove('sid-1');
    await store.touch('sid-1', '2026-11-26T10:05:00.000Z');
    expect(await backend.get(activeSessionsPrefix + 'sid-1')).toBeNull();
  });
});
