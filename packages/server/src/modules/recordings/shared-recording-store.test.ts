import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalDirBlobStore } from '../../blobs/local-dir-blob-store.js';
import { SqliteBlobSpool } from '../../blobs/spool/blob-spool.sqlite.js';
import { SpooledBlobStore } from '../../blobs/spool/spooled-blob-store.js';
import { recordMinute } from './recording-integrity.testkit.js';
import { verifyRecording } from './recording-verify.js';
import { SessionRecorder } from './session-recorder.js';
import { SharedRecordingStore } from './shared-recording-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-shared-rec-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** One proxy's view of the shared recordings: the same bucket (a directory here) and spool. */
function proxy(owner: string) {
  const spooled = new SpooledBlobStore(
    new LocalDirBlobStore(path.join(dir, 'bucket')),
    new SqliteBlobSpool(path.join(dir, 'spool.db')),
    { owner, flushIntervalMs: 100 },
  );
  return { store: new SharedRecordingStore(spooled), spooled };
}

describe('shared recording store', () => {
  it('a recording made on one proxy is sealed, uploaded and read on another', async () => {
    const a = proxy('a');
    const b = proxy('b');
    await a.store.init();
    await b.store.init();
    try {
      const index = await recordMinute(a.store, 's-whole');
      expect(index.incomplete).toBe(false);
      await expect.poll(() => a.spooled.spool.list()).toEqual([]);
      expect(await b.store.listSealed()).toEqual(['s-whole']);
      expect(await verifyRecording(b.store, 's-whole')).toMatchObject({ status: 'ok' });
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });

  it('a recording left open by a dead proxy is adopted, sealed with what was flushed, and plays', async () => {
    const a = proxy('a');
    const b = proxy('b');
    await a.store.init();
    await b.store.init();
    try {
      const clock = { now: 0 };
      const recorder = new SessionRecorder(
        a.store.create('s-cut'),
        { width: 80, height: 24, start: 0, term: 'xterm', title: 't' },
        { now: () => clock.now, onFailure: () => undefined, flushBytes: 500 },
      );
      for (let second = 1; second <= 20; second++) {
        clock.now = second * 1000;
        recorder.output(Buffer.from(`second ${second} ${'y'.repeat(300)}\r\n`));
      }
      // Past the flush interval, the spool holds what a SIGKILL now would leave.
      await new Promise((resolve) => setTimeout(resolve, 400));
      // While `a` lives, `b` takes nothing and nothing is sealed at its start either.
      expect(await b.store.recover((id) => id === 'a')).toEqual([]);
      expect(await b.store.init()).toEqual({ sealed: [] });
      expect(await b.store.readIndex('s-cut')).toBeUndefined();
      // `a` is gone: `b` seals its recording.
      expect(await b.store.recover(() => false)).toEqual(['s-cut']);
      const index = await b.store.readIndex('s-cut');
      expect(index).toMatchObject({ incomplete: true, sealed: true });
      // Everything written before the flush interval is there (the recorder flushed members of
      // ~500 bytes, so the last second or two may not have been a whole member yet).
      expect(index!.durationMs).toBeGreaterThanOrEqual(18_000);
      expect(await verifyRecording(b.store, 's-cut')).toMatchObject({ status: 'ok' });
      // Its parts were uploaded to the bucket and left the spool.
      await expect.poll(() => b.spooled.spool.list()).toEqual([]);
      expect(await b.spooled.target.stat('s-cut.index.json')).toBeDefined();
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });
});
