import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAuditStore } from '../audit/audit.sqlite.js';
import { readDiskUsage, systemStatfs, type FsBlocks } from './disk-usage.js';
import { DiskUsageMonitor } from './disk-usage.monitor.js';

let dir: string;
let audit: SqliteAuditStore;
let warnings: { message: string; fields?: object }[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-disk-'));
  audit = new SqliteAuditStore(path.join(dir, 'audit.db'), 'c1');
  warnings = [];
});

afterEach(async () => {
  await audit.close();
  await rm(dir, { recursive: true, force: true });
});

/** A volume of 1000 blocks of 4 KiB with `usedPercent` of them used (no root reserve). */
const volumeAt = (usedPercent: number): FsBlocks => ({
  bsize: 4096,
  blocks: 1000,
  bfree: 1000 - usedPercent * 10,
  bavail: 1000 - usedPercent * 10,
});

async function warningEvents() {
  const found = await audit.search({
    from: new Date(0),
    to: new Date(Date.now() + 60_000),
    limit: 100,
    order: 'asc',
  });
  return found.events.filter((e) => e.code === 'TPOS071W');
}

describe('DiskUsageMonitor on the recordings volume', () => {
  it('warns in the log and the audit at 90%, not at 89%, once per crossing', async () => {
    let volume = volumeAt(89);
    const monitor = new DiskUsageMonitor({
      dir: path.join(dir, 'recordings'),
      warnPercent: 90,
      intervalMs: 60_000,
      audit,
      log: (level, message, fields) => {
        if (level === 'warn') warnings.push({ message, fields });
      },
      statfs: async () => volume,
    });
    await monitor.check();
    expect(monitor.usage()?.usedPercent).toBeCloseTo(89);
    expect(warnings).toEqual([]);

    volume = volumeAt(90);
    await monitor.check();
    volume = volumeAt(95);
    await monitor.check();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((w) => w.message)).toEqual([
      'the recordings volume is 90% full: free space before recordings fail',
    ]);
    expect(await warningEvents()).toEqual([
      expect.objectContaining({
        event: 'storage.disk_usage_high',
        path: path.join(dir, 'recordings'),
        used_percent: 90,
        threshold_percent: 90,
        available_bytes: 100 * 4096,
        total_bytes: 1000 * 4096,
      }),
    ]);

    // Below, then across again: a second announcement.
    volume = volumeAt(50);
    await monitor.check();
    volume = volumeAt(92);
    await monitor.check();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveLength(2);
    expect((await warningEvents()).map((e) => e.used_percent)).toEqual([90, 92]);
  });

  it('counts root-reserved blocks as used, as df does', async () => {
    const usage = await readDiskUsage(dir, async () => ({
      bsize: 1024,
      blocks: 1000,
      bfree: 150,
      bavail: 100,
    }));
    expect(usage.usedPercent).toBeCloseTo((850 / 950) * 100);
  });

  it('reads the real filesystem, at the nearest existing parent of a missing dir', async () => {
    const usage = await readDiskUsage(path.join(dir, 'not', 'yet'), systemStatfs);
    expect(usage.totalBytes).toBeGreaterThan(0);
    expect(usage.usedPercent).toBeGreaterThanOrEqual(0);
    expect(usage.usedPercent).toBeLessThanOrEqual(100);
  });
});
