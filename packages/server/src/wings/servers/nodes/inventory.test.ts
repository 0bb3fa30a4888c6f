import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateEd25519Key } from '../../../ssh/keys.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { InventoryService } from './inventory.service.js';
import { waitForNode } from './inventory.testkit.js';
import type { NodeHeartbeat } from './node-records.js';
import { heartbeatsPrefix, nodesPrefix } from './nodes.store.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';

let app: TestApp;
/** Two proxies on one storage: `proxyA` takes the writes, `proxyB` must see them. */
let proxyA: InventoryService;
let proxyB: InventoryService;
const admin = hostActor('cli:test');

beforeAll(async () => {
  app = await createTestApp();
  const options = { now: app.clock.now, heartbeatIntervalMs: 1000, recordRefreshMs: 60_000 };
  proxyA = new InventoryService(app.backend, app.audit, options);
  proxyB = new InventoryService(app.backend, app.audit, options);
  await Promise.all([proxyA.start(), proxyB.start()]);
});
afterAll(async () => {
  await Promise.all([proxyA.close(), proxyB.close()]);
  await app.close();
});

const beat = (overrides: Partial<NodeHeartbeat> = {}): NodeHeartbeat => ({
  id: randomUUID(),
  hostname: 'worker-1',
  addr: '',
  subKind: 'postern',
  tunnel: true,
  os: 'linux',
  labels: { env: 'dev' },
  cmdLabels: {},
  hostPublicKey: generateEd25519Key().publicKey,
  ...overrides,
});

const seen = async (inventory: InventoryService, id: string) =>
  inventory.row(await waitForNode(inventory, id));

describe('heartbeats', () => {
  it('registers a node once, online on every proxy, and rewrites the record only on change', async () => {
    const first = beat({
      cmdLabels: { arch: { command: ['uname', '-m'], period: '1h', result: 'x86_64' } },
    });
    await proxyA.heartbeat(first);
    const row = await seen(proxyB, first.id);
    expect(row.status).toBe('online');
    expect(Math.abs(Date.parse(row.lastHeartbeat) - app.clock.now())).toBeLessThan(2000);
    expect(row.labels).toEqual({ env: 'dev', arch: 'x86_64' });
    expect(row.node.spec).toMatchObject({ tunnel: true, addr: '', hostKeySource: 'reported' });
    expect((await auditEventsOf(app, 'TPOS020I')).filter((e) => e.name === first.id)).toHaveLength(
      1,
    );

    const revision = async () => (await app.backend.get(nodesPrefix + first.id))!.revision;
    const before = await revision();
    await proxyA.heartbeat(first);
    expect(await revision()).toBe(before);
    await proxyA.heartbeat({ ...first, labels: { env: 'prod' } });
    expect(await revision()).not.toBe(before);
    await vi.waitFor(() => expect(proxyB.get(first.id)?.metadata.labels).toEqual({ env: 'prod' }));
    expect((await auditEventsOf(app, 'TPOS020I')).filter((e) => e.name === first.id)).toHaveLength(
      1,
    );
  });

  it('shows a silent node offline, keeps its last heartbeat, and collects it after a day', async () => {
    const node = beat({ hostname: 'quiet' });
    await proxyA.heartbeat(node);
    const online = await seen(proxyB, node.id);
    expect(online.status).toBe('online');
    app.clock.advance(3 * 1000 + 1);
    const offline = proxyB.row(proxyB.get(node.id)!);
    expect(offline.status).toBe('offline');
    expect(offline.lastHeartbeat).toBe(online.lastHeartbeat);
    expect(proxyB.rows().map((row) => row.node.metadata.name)).toContain(node.id);
    const stored = await app.backend.get(nodesPrefix + node.id);
    expect(Date.parse(stored!.expires!.toISOString())).toBeGreaterThan(
      app.clock.now() + 23 * 3600_000,
    );
    app.clock.advance(24 * 3600_000);
    expect(proxyB.get(node.id)).toBeUndefined();
    expect(proxyB.rows().map((row) => row.node.metadata.name)).not.toContain(node.id);
  });

  it('marks online with a short-lived key that the backend expires by itself', async () => {
    const fast = new InventoryService(app.backend, app.audit, { heartbeatTtlMs: 100 });
    await fast.start();
    try {
      const node = beat({ hostname: 'fast' });
      await fast.heartbeat(node);
      const marker = await app.backend.get(heartbeatsPrefix + node.id);
      expect(marker!.expires!.getTime() - Date.now()).toBeLessThanOrEqual(100);
      await vi.waitFor(() => expect(fast.row(fast.get(node.id)!).status).toBe('offline'));
      await vi.waitFor(
        async () => expect(await app.backend.get(heartbeatsPrefix + node.id)).toBeNull(),
        { timeout: 3000 },
      );
    } finally {
      await fast.close();
    }
  });

  it('refuses a malformed heartbeat', async () => {
    await expect(proxyA.heartbeat(beat({ id: 'not-a-uuid' }))).rejects.toMatchObject({
      code: 'bad_parameter',
    });
    await expect(proxyA.heartbeat(beat({ labels: { 'bad label': 'x' } }))).rejects.toMatchObject({
      code: 'bad_parameter',
    });
    await expect(
      proxyA.heartbeat(beat({ hostPublicKey: 'ssh-ed25519 bm9wZQ==' })),
    ).rejects.toMatchObject({
      code: 'bad_parameter',
    });
  });
});

describe('agentless OpenSSH hosts', () => {
  it('are offline until the proxy reaches them, never expire, and refuse a second host at one address', async () => {
    const node = await proxyA.addOpenSsh(
      { name: 'db-1', addr: '10.0.0.9:22', labels: { env: 'prod' } },
      admin,
    );
    const row = await seen(proxyB, node.metadata.name);
    // Nothing has answered at 10.0.0.9 yet (reachability.test.ts shows them coming online).
    expect(row).toMatchObject({ status: 'offline', lastHeartbeat: '' });
    expect(row.node.spec).toMatchObject({
      subKind: 'openssh',
      hostPublicKey: '',
      hostKeySource: '',
    });
    expect(row.node.metadata.expires).toBeUndefined();
    await expect(
      proxyA.addOpenSsh({ name: 'db-2', addr: '10.0.0.9:22' }, admin),
    ).rejects.toMatchObject({ code: 'already_exists' });
    await expect(
      proxyA.addOpenSsh({ name: 'x y', addr: '10.0.0.10:22' }, admin),
    ).rejects.toMatchObject({
      code: 'bad_parameter',
    });
    await expect(proxyA.addOpenSsh({ name: 'ok', addr: 'nope' }, admin)).rejects.toMatchObject({
      code: 'bad_parameter',
    });
    const [created] = (await auditEventsOf(app, 'TPOS020I')).filter(
      (e) => e.name === node.metadata.name,
    );
    expect(created).toMatchObject({ user: 'cli:test', hostname: 'db-1', addr: '10.0.0.9:22' });
  });

  it('pins a host key on first use, never overwrites it, and audits a mismatch', async () => {
    const node = await proxyA.addOpenSsh({ name: 'pin-me', addr: '10.0.0.20:22' }, admin);
    const id = node.metadata.name;
    const key = generateEd25519Key().publicKey;
    const pinned = await proxyA.pinHostKey(id, `${key} root@pin-me`);
    expect(pinned.spec).toMatchObject({ hostPublicKey: key, hostKeySource: 'pinned' });
    await proxyA.pinHostKey(id, key);
    expect((await auditEventsOf(app, 'TPOS022I')).filter((e) => e.name === id)).toHaveLength(1);

    const other = generateEd25519Key().publicKey;
    await expect(proxyA.pinHostKey(id, other)).rejects.toMatchObject({ code: 'access_denied' });
    await proxyB.reportHostKeyMismatch(id, other);
    const [mismatch] = (await auditEventsOf(app, 'TPOS023E')).filter((e) => e.name === id);
    expect(mismatch).toMatchObject({ hostname: 'pin-me', addr: '10.0.0.20:22' });
    expect(mismatch!.expected_fingerprint).toMatch(/^SHA256:/);
    expect(mismatch!.presented_fingerprint).not.toBe(mismatch!.expected_fingerprint);
    await vi.waitFor(() => expect(proxyB.get(id)?.spec.hostPublicKey).toBe(key));
  });
});

describe('resolve and remove', () => {
  it('finds a server by id, hostname or address, and never a hidden or ambiguous one', async () => {
    const a = await proxyA.addOpenSsh(
      { name: 'Twin', addr: '10.1.0.1:22', labels: { team: 'a' } },
      admin,
    );
    const b = await proxyA.addOpenSsh(
      { name: 'twin', addr: '10.1.0.2:2222', labels: { team: 'b' } },
      admin,
    );
    await seen(proxyB, a.metadata.name);
    await seen(proxyB, b.metadata.name);
    expect(proxyB.resolve(a.metadata.name).metadata.name).toBe(a.metadata.name);
    expect(proxyB.resolve('10.1.0.2:2222').metadata.name).toBe(b.metadata.name);
    expect(() => proxyB.resolve('TWIN')).toThrow(/2 servers are called 'TWIN'/);
    const teamA = {
      canAccess: (_kind: 'node', node: { labels?: Record<string, string> }) =>
        node.labels?.team === 'a',
      loginsFor: () => [],
    };
    expect(proxyB.resolve('twin', teamA).metadata.name).toBe(a.metadata.name);
    expect(() => proxyB.resolve(b.metadata.name, teamA)).toThrow(/not found/);
    expect(() => proxyB.resolve('nowhere')).toThrow(/server nowhere not found/);

    await proxyA.remove(b.metadata.name, admin);
    await vi.waitFor(() => expect(proxyB.get(b.metadata.name)).toBeUndefined());
    expect(proxyB.resolve('twin').metadata.name).toBe(a.metadata.name);
    const [removed] = (await auditEventsOf(app, 'TPOS021I')).filter(
      (e) => e.name === b.metadata.name,
    );
    expect(removed).toMatchObject({ user: 'cli:test', hostname: 'twin' });
  });
});
