import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LockWatcher } from './lock-watcher.js';
import { LocksStore } from './locks.store.js';
import { relayedPostgres } from '../../testing/relayed-postgres.testkit.js';
import type { TcpRelay } from '../../testing/tcp-relay.testkit.js';
import { PostgresBackend } from '../../backend/postgres.js';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';

// The database goes silent under a proxy (a host gone, a cable cut: no reset, no error, the
// connections just stop). The watch's reads of the event log time out instead of hanging, so
// the lock view turns stale (and `lock: strict` fences) within the read timeout rather than
// for as long as TCP keeps the sockets; new connections then bring it back. A real PostgreSQL
// behind a loopback relay that freezes the connections it carries.
const schemas = new TestSchemas();
let relay: TcpRelay;
let relayUrl: string;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  await schemas.connect();
  ({ relay, url: relayUrl } = await relayedPostgres());
});

afterEach(async () => {
  await relay.cut(); // frozen connections go, so closing does not wait on them
  for (const item of opened.splice(0).reverse()) await item.close();
  await relay.restore();
});

afterAll(async () => {
  await relay?.close();
  await schemas.dropAll();
});

async function until(check: () => boolean, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lockOn = (user: string) => ({
  kind: 'lock' as const,
  version: 'v2' as const,
  metadata: { name: randomUUID() },
  spec: { target: { user }, message: '', createdBy: 'test', createdAt: new Date().toISOString() },
});

describe('a watch whose database goes silent', () => {
  it('turns the lock view stale within the read timeout, and fresh again over new connections', async () => {
    const schema = schemas.newName();
    const throughRelay = await PostgresBackend.open({
      url: relayUrl,
      schema,
      pollIntervalMs: 100,
      eventReadTimeoutMs: 500,
    });
    opened.push(throughRelay);
    const direct = await PostgresBackend.open({ url: testPostgresUrl, schema });
    opened.push(direct);
    const locks = new LockWatcher(throughRelay, Date.now);
    await locks.start();
    opened.push(locks);

    await new LocksStore(direct).create(lockOn('before'));
    await until(() => locks.isLocked({ user: 'before' }), 'a lock written elsewhere', 5_000);
    expect(locks.isStale()).toBe(false);

    relay.freeze();
    await until(() => locks.isStale(), 'the lock view to go stale', 5_000);

    // The relay freezes only the connections it had: new ones pass, as when the path is back.
    await until(() => !locks.isStale(), 'the lock view to be fresh again', 15_000);
    await new LocksStore(direct).create(lockOn('after'));
    await until(() => locks.isLocked({ user: 'after' }), 'a lock written after', 5_000);
  }, 40_000);
});
