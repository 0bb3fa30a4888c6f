import { EventEmitter } from 'node:events';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/memory.js';
import type { AuditStore } from '../audit/index.js';
import type { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { SessionHub } from '../sessions/session-hub.js';
import { DirRecordingStore } from './recording-store.js';

/** No locks: the hub only listens for them. */
const locks = Object.assign(new EventEmitter(), {
  lockFor: () => undefined,
}) as unknown as LockWatcher;
const audit = { emit: async () => undefined } as unknown as AuditStore;

let dir: string;
const hubs: SessionHub[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-hub-rec-'));
});
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  await rm(dir, { recursive: true, force: true });
});

function hub(
  recordingsDir: string,
  onFailure: 'fail_closed' | 'fail_open',
  errors: unknown[] = [],
) {
  const h = new SessionHub({
    backend: new MemoryBackend(),
    audit,
    locks,
    now: Date.now,
    onError: (error) => errors.push(error),
    recordings: { store: new DirRecordingStore(recordingsDir), onFailure },
  });
  hubs.push(h);
  return h;
}

describe('SessionHub start and recordings', () => {
  it('seals recordings a crash left open', async () => {
    const sid = '0b7e2a6c-1111-4222-8333-944455556666';
    await writeFile(path.join(dir, `${sid}.cast.gz`), gzipSync('{"version":2}\n'));
    await hub(dir, 'fail_closed').start();
    await access(path.join(dir, `${sid}.index.json`));
  });

  it('does not start with unusable storage when failing closed, and does when failing open', async () => {
    await writeFile(path.join(dir, 'file'), '');
    const broken = path.join(dir, 'file', 'recordings');
    await expect(hub(broken, 'fail_closed').start()).rejects.toThrow(/ENOTDIR|EEXIST/);
    const errors: unknown[] = [];
    await hub(broken, 'fail_open', errors).start();
    expect(errors).toHaveLength(1);
  });
});
