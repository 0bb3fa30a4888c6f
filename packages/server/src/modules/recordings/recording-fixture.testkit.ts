import { mkdir, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import { DirRecordingStore, type RecordingIndex } from './recording-store.js';

/**
 * A sealed terminal recording of `sid` in the test app's recordings directory, and the session's
 * end in its audit log (what Session Recordings lists), as a session of `participants` would
 * leave them.
 */
export async function writeSealedRecording(
  app: TestApp,
  sid: string,
  cast: string,
  {
    participants,
    durationMs,
    endedAt = new Date(app.clock.now()),
  }: { participants: string[]; durationMs: number; endedAt?: Date },
): Promise<void> {
  const store = new DirRecordingStore(app.config.recordings.dir);
  await mkdir(store.dir, { recursive: true });
  await writeFile(store.file(sid, 'cast.gz'), gzipSync(cast));
  const index: RecordingIndex = {
    version: 1,
    sid,
    sealed: true,
    incomplete: false,
    durationMs,
    participants,
    castBytes: Buffer.byteLength(cast),
    keyframes: [],
  };
  await writeFile(store.file(sid, 'index.json'), JSON.stringify(index));
  const stop = endedAt;
  await app.audit.emit({
    event: 'session.end',
    code: 'T2004I',
    time: stop,
    sid,
    user: participants[0]!,
    participants,
    login: 'root',
    server_hostname: 'web-1',
    interactive: true,
    session_recording: 'on',
    session_start: new Date(stop.getTime() - durationMs).toISOString(),
    session_stop: stop.toISOString(),
  });
}
