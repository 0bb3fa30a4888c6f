import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { RecordingMark } from '@postern/contracts';
import {
  chainSeed,
  chunkLine,
  nextChain,
  sha256Hex,
  type RecordingIntegrity,
} from './recording-integrity.js';
import { sealCast } from './seal.js';

/** `<sid>.index.json`: written when a recording ends (or is sealed after a crash). See docs/recordings.md. */
export interface RecordingIndex {
  version: 1;
  sid: string;
  /** False only while the recording is being written; the index does not exist then. */
  sealed: true;
  /** The proxy stopped before the session ended: the cast ends early and has no end marker. */
  incomplete: boolean;
  durationMs: number;
  /** Who took part; [] after a crash (then only roles without a participants rule may read it). */
  participants: string[];
  /** Size of the uncompressed cast. */
  castBytes: number;
  /** Time (s), offset in the uncompressed cast, and byte range in `<sid>.keyframes.jsonl`. */
  /** `sha256`: of the keyframe's line (absent in indexes sealed before chunk hashes). */
  keyframes: { t: number; offset: number; at: number; length: number; sha256?: string }[];
  /**
   * Where gzip members start that a reader may begin decompressing at: a time no later than the
   * member's first event, its offset in the uncompressed cast and its byte position in `<sid>.cast.gz`.
   * Every keyframe's offset is one, and there is one at least every MiB of cast. Indexes written
   * before seek points existed lack it; readers then start at the beginning.
   */
  seekPoints?: SeekPoint[];
  /** Joins and resizes for the player's timeline. Indexes written before marks existed lack it. */
  marks?: RecordingMark[];
  /** The chunk hash chain's head and the keyframes' hash (recording-integrity.ts); absent in older indexes. */
  integrity?: RecordingIntegrity;
}

export interface SeekPoint {
  t: number;
  offset: number;
  gz: number;
}

export interface RecordingWriter {
  sid: string;
  /** Receives the gzip-compressed cast. */
  cast: Writable;
  /** Receives keyframe JSON lines. */
  keyframes: Writable;
  /** Receives the chunk list: one line per gzip member, with its chain hash. */
  chunks: Writable;
  /** Called once both streams finished. */
  seal(index: RecordingIndex): Promise<void>;
}

/**
 * Where recordings live. The directory store is the only one so far; an S3 store (for several
 * proxies sharing recordings) implements the same calls later.
 */
export interface RecordingStore {
  /** Creates the storage and seals what a crash left open; call once at start. */
  init(): Promise<{ sealed: string[] }>;
  /** Starts a recording. Open failures surface as 'error' on the streams. */
  create(sid: string): RecordingWriter;
  /** The index of a sealed recording, or undefined (unknown, or still being written). */
  readIndex(sid: string): Promise<RecordingIndex | undefined>;
  /** The gzip cast from byte `gz` (a seek point), or undefined. */
  openCast(sid: string, gz?: number): Promise<Readable | undefined>;
  /** One line of `<sid>.keyframes.jsonl`, by the index's `at` and `length`. */
  readKeyframe(sid: string, at: number, length: number): Promise<Buffer | undefined>;
  /** `<sid>.chunks.jsonl` whole, or undefined when there is none. */
  readChunkList(sid: string): Promise<Buffer | undefined>;
  /** `<sid>.keyframes.jsonl` as a stream, or undefined. */
  openKeyframes(sid: string): Promise<Readable | undefined>;
  /** The sessions that have a sealed recording. */
  listSealed(): Promise<string[]>;
}

const sidPattern = /^[A-Za-z0-9-]{1,64}$/;

/** `<data_dir>/recordings/<sid>.cast.gz`, `<sid>.keyframes.jsonl` and `<sid>.index.json`. */
export class DirRecordingStore implements RecordingStore {
  constructor(readonly dir: string) {}

  async init(): Promise<{ sealed: string[] }> {
    await mkdir(this.dir, { recursive: true });
    const sealed: string[] = [];
    for (const name of await readdir(this.dir)) {
      const sid = name.endsWith('.cast.gz') ? name.slice(0, -'.cast.gz'.length) : '';
      if (!sidPattern.test(sid)) continue;
      if (await exists(this.file(sid, 'index.json'))) continue;
      await this.sealAfterCrash(sid);
      sealed.push(sid);
    }
    return { sealed };
  }

  create(sid: string): RecordingWriter {
    if (!sidPattern.test(sid)) throw new Error(`invalid session id ${sid}`);
    return {
      cast: createWriteStream(this.file(sid, 'cast.gz'), { flags: 'wx' }),
      sid,
      keyframes: createWriteStream(this.file(sid, 'keyframes.jsonl'), { flags: 'wx' }),
      chunks: createWriteStream(this.file(sid, 'chunks.jsonl'), { flags: 'wx' }),
      seal: (index) => this.writeIndex(sid, { ...index, sid }),
    };
  }

  async openCast(sid: string, gz = 0): Promise<Readable | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const file = this.file(sid, 'cast.gz');
    if (!(await exists(file))) return undefined;
    return createReadStream(file, { start: gz });
  }

  async readKeyframe(sid: string, at: number, length: number): Promise<Buffer | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const handle = await open(this.file(sid, 'keyframes.jsonl')).catch(() => undefined);
    if (!handle) return undefined;
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, at);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async readChunkList(sid: string): Promise<Buffer | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    return readFile(this.file(sid, 'chunks.jsonl')).catch(() => undefined);
  }

  async openKeyframes(sid: string): Promise<Readable | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const file = this.file(sid, 'keyframes.jsonl');
    return (await exists(file)) ? createReadStream(file) : undefined;
  }

  async listSealed(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names
      .filter((name) => name.endsWith('.index.json'))
      .map((name) => name.slice(0, -'.index.json'.length))
      .filter((sid) => sidPattern.test(sid))
      .sort();
  }

  async readIndex(sid: string): Promise<RecordingIndex | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const text = await readFile(this.file(sid, 'index.json'), 'utf8').catch(() => undefined);
    return text === undefined ? undefined : (JSON.parse(text) as RecordingIndex);
  }

  file(sid: string, suffix: 'cast.gz' | 'keyframes.jsonl' | 'chunks.jsonl' | 'index.json'): string {
    return path.join(this.dir, `${sid}.${suffix}`);
  }

  /**
   * Keeps the readable part of the cast and the keyframes it covers, and marks it incomplete.
   * The cast is rewritten, so its chunk list is too: the seal vouches for what was recovered.
   */
  private async sealAfterCrash(sid: string): Promise<void> {
    const text = await readFile(this.file(sid, 'keyframes.jsonl')).catch(() => Buffer.alloc(0));
    const candidates = readKeyframeLines(text).map((k) => ({
      ...k,
      sha256: sha256Hex(text.subarray(k.at, k.at + k.length)),
    }));
    const castFile = this.file(sid, 'cast.gz');
    const sealed = sealCast(
      await readFile(castFile),
      candidates.map((k) => k.offset),
    );
    await writeFile(`${castFile}.tmp`, sealed.gzip);
    await rename(`${castFile}.tmp`, castFile);
    const chunks = await this.writeChunkList(sid, sealed.gzip, sealed.seekPoints);
    await this.writeIndex(sid, {
      version: 1,
      sid,
      sealed: true,
      incomplete: true,
      durationMs: Math.round(sealed.lastTime * 1000),
      participants: [],
      castBytes: sealed.castBytes,
      keyframes: candidates.filter((k) => k.offset <= sealed.castBytes),
      seekPoints: sealed.seekPoints,
      marks: sealed.marks,
      integrity: {
        algorithm: 'sha256-chain',
        chunks: chunks.count,
        head: chunks.head,
        keyframes: sha256Hex(text),
      },
    });
  }

  /** The chunk list of a cast sealed after a crash: its members start at the seek points. */
  private async writeChunkList(
    sid: string,
    gzip: Buffer,
    seekPoints: SeekPoint[],
  ): Promise<{ count: number; head: string }> {
    const points = seekPoints.length > 0 ? seekPoints : [{ t: 0, offset: 0, gz: 0 }];
    let chain = chainSeed(sid);
    let lines = '';
    points.forEach((point, i) => {
      const end = points[i + 1]?.gz ?? gzip.length;
      chain = nextChain(chain, gzip.subarray(point.gz, end));
      const { gz, offset, t } = point;
      lines += chunkLine({ i, gz, length: end - gz, offset, t, chain });
    });
    const file = this.file(sid, 'chunks.jsonl');
    await writeFile(`${file}.tmp`, lines);
    await rename(`${file}.tmp`, file);
    return { count: points.length, head: chain };
  }

  private async writeIndex(sid: string, index: RecordingIndex): Promise<void> {
    const file = this.file(sid, 'index.json');
    await writeFile(`${file}.tmp`, JSON.stringify(index));
    await rename(`${file}.tmp`, file);
  }
}

/** The whole, parseable keyframe lines of a file a crash may have cut, with their positions. */
function readKeyframeLines(text: Buffer): RecordingIndex['keyframes'] {
  const keyframes: RecordingIndex['keyframes'] = [];
  let at = 0;
  for (let end = text.indexOf(10); end >= 0; end = text.indexOf(10, at)) {
    try {
      const { t, offset } = JSON.parse(text.subarray(at, end).toString('utf8')) as {
        t: number;
        offset: number;
      };
      keyframes.push({ t, offset, at, length: end - at + 1 });
    } catch {
      break;
    }
    at = end + 1;
  }
  return keyframes;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
