// The desktop bench's look at the recordings Postern writes (bench/desktop.mjs), read from its
// recordings dir.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** The desktop recordings' events blobs in the recordings dir, by name. */
export async function desktopBlobs(recordingsDir) {
  const names = await readdir(recordingsDir).catch(() => []);
  return new Set(names.filter((name) => name.endsWith('.desktop.events')));
}

/** The bytes of the events blobs that were not there `before`. */
export async function blobBytes(recordingsDir, before) {
  let bytes = 0;
  for (const name of await desktopBlobs(recordingsDir)) {
    if (before.has(name)) continue;
    bytes += (await stat(path.join(recordingsDir, name)).catch(() => ({ size: 0 }))).size;
  }
  return bytes;
}

/** The recording that started after `before`, once sealed: its blobs' bytes and its seal. */
export async function sealedRecording(recordingsDir, before) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const fresh = [...(await desktopBlobs(recordingsDir))].filter((name) => !before.has(name));
    if (fresh.length > 1) throw new Error(`${fresh.length} new recordings, expected one`);
    const sid = fresh[0]?.replace(/\.desktop\.events$/, '');
    const index = sid && path.join(recordingsDir, `${sid}.desktop.index.json`);
    if (index && existsSync(index)) {
      const seal = JSON.parse(await readFile(index, 'utf8'));
      let bytes = 0;
      for (const suffix of ['.desktop.events', '.desktop.chunks.jsonl', '.desktop.index.json']) {
        bytes += (await stat(path.join(recordingsDir, `${sid}${suffix}`))).size;
      }
      return {
        bytes,
        durationMs: seal.durationMs,
        writes: seal.integrity.chunks,
        keyframes: seal.keyframes.length,
      };
    }
    if (Date.now() > deadline) throw new Error('the recording was not sealed within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
