import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { readDiskUsage, systemStatfs } from '../disk-usage/disk-usage.js';
import type { RecordingMark } from '@postern/contracts';
import type { BlobStore } from '../../blobs/blob-store.js';
import { LocalDirBlobStore } from '../../blobs/local-dir-blob-store.js';
import { meteredBlobStore } from '../../blobs/metered-blob-store.js';
import { sealAfterCrash } from './crash-seal.js';
import { recordingBlobName, writeIndex, type RecordingPart } from './recording-blobs.js';
import type { RecordingIntegrity } from './recording-integrity.js';

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
 * Recordings as the player, the recorder and `postern verify` see them. `BlobRecordingStore`
 * lays them out over any blob store; only the blob store knows where the bytes live.
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
  /**
   * Why a recording could not be written now (storage gone, volume full), or undefined: what
   * `record_session: strict` asks before a session starts. Absent: assumed writable.
   */
  writableProblem?(): Promise<string | undefined>;
  /**
   * Shared stores only (several proxies on one bucket): takes over the open recordings of the
   * proxies `isLive` says are gone, seals them and returns their session ids.
   */
  recover?(isLive: (proxyId: string) => boolean): Promise<string[]>;
  /** Recordings of this proxy written but not yet in their final storage (a metric). */
  uploadsWaiting?(): number;
  close?(): Promise<void>;
}

/** Below this much free space a strict session is not started: its recording would fail. */
export const minFreeRecordingBytes = 16 * 1024 * 1024;

const sidPattern = /^[A-Za-z0-9-]{1,64}$/;

/** Whether `sid` may name a recording: its blobs are named after it. */
export const isRecordingSid = (sid: string) => sidPattern.test(sid);

/**
 * A recording format whose recordings a crash can leave open (written while the session ran,
 * sealed at its end): terminal recordings, and the formats the platform adds (desktops). At
 * start, `init` seals every open one.
 */
export interface CrashSealer {
  /** The blob every recording of the format starts with (`cast.gz`): `<sid>.<part>`. */
  firstPart: string;
  /** The blob that exists once a recording is sealed (`index.json`). */
  sealPart: string;
  /** Seals an open recording: keeps what a crash left readable, and marks it incomplete. */
  seal(blobs: BlobStore, sid: string): Promise<void>;
}

const terminalRecordings: CrashSealer = {
  firstPart: 'cast.gz',
  sealPart: 'index.json',
  seal: sealAfterCrash,
};

/**
 * The recording format over a blob store: `<sid>.cast.gz`, `<sid>.keyframes.jsonl` and
 * `<sid>.chunks.jsonl` appended as the session runs, `<sid>.index.json` (the seal) put at its end.
 * A cast without a seal was cut short by a crash and is sealed at the next start; so is an open
 * recording of each format in `formats` (desktop recordings), in the same blob store.
 */
export class BlobRecordingStore implements RecordingStore {
  private readonly sealers: readonly CrashSealer[];

  constructor(
    readonly blobs: BlobStore,
    formats: readonly CrashSealer[] = [],
  ) {
    this.sealers = [terminalRecordings, ...formats];
  }

  async init(): Promise<{ sealed: string[] }> {
    await this.blobs.init();
    return { sealed: await this.sealOpen(await this.blobs.list()) };
  }

  /**
   * Seals the recordings these blobs start (each format's first part) that have no seal: what a
   * proxy that died mid-session left. Returns their session ids.
   */
  protected async sealOpen(names: string[]): Promise<string[]> {
    const sealed: string[] = [];
    for (const name of names) {
      for (const sealer of this.sealers) {
        const suffix = `.${sealer.firstPart}`;
        const sid = name.endsWith(suffix) ? name.slice(0, -suffix.length) : '';
        if (!sidPattern.test(sid)) continue;
        if (await this.blobs.stat(`${sid}.${sealer.sealPart}`)) continue;
        await sealer.seal(this.blobs, sid);
        sealed.push(sid);
      }
    }
    return sealed;
  }

  /** Releases what the store holds open (a directory holds nothing). */
  async close(): Promise<void> {}

  /** Parts waiting for an upload: none, when blobs are written where they stay. */
  uploadsWaiting(): number {
    return 0;
  }

  create(sid: string): RecordingWriter {
    if (!sidPattern.test(sid)) throw new Error(`invalid session id ${sid}`);
    return {
      cast: this.blobs.append(recordingBlobName(sid, 'cast.gz')),
      sid,
      keyframes: this.blobs.append(recordingBlobName(sid, 'keyframes.jsonl')),
      chunks: this.blobs.append(recordingBlobName(sid, 'chunks.jsonl')),
      seal: (index) => writeIndex(this.blobs, { ...index, sid }),
    };
  }

  async openCast(sid: string, gz = 0): Promise<Readable | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    return this.blobs.read(recordingBlobName(sid, 'cast.gz'), { start: gz });
  }

  async readKeyframe(sid: string, at: number, length: number): Promise<Buffer | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const name = recordingBlobName(sid, 'keyframes.jsonl');
    return this.blobs.get(name, { start: at, end: at + length }).catch(() => undefined);
  }

  async readChunkList(sid: string): Promise<Buffer | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    return this.blobs.get(recordingBlobName(sid, 'chunks.jsonl')).catch(() => undefined);
  }

  async openKeyframes(sid: string): Promise<Readable | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    return this.blobs.read(recordingBlobName(sid, 'keyframes.jsonl'));
  }

  async listSealed(): Promise<string[]> {
    const names = await this.blobs.list().catch(() => [] as string[]);
    return names
      .filter((name) => name.endsWith('.index.json'))
      .map((name) => name.slice(0, -'.index.json'.length))
      .filter((sid) => sidPattern.test(sid))
      .sort();
  }

  async readIndex(sid: string): Promise<RecordingIndex | undefined> {
    if (!sidPattern.test(sid)) return undefined;
    const name = recordingBlobName(sid, 'index.json');
    const text = await this.blobs.get(name).catch(() => undefined);
    return text === undefined ? undefined : (JSON.parse(text.toString('utf8')) as RecordingIndex);
  }
}

/** Recordings in a directory (`<data_dir>/recordings`): the store the server runs with today. */
export class DirRecordingStore extends BlobRecordingStore {
  private readonly local: LocalDirBlobStore;

  constructor(
    readonly dir: string,
    formats: readonly CrashSealer[] = [],
    /** Told the bytes of each write, for the recording bytes metric. */
    onWritten?: (bytes: number) => void,
  ) {
    const local = new LocalDirBlobStore(dir);
    super(onWritten ? meteredBlobStore(local, onWritten) : local, formats);
    this.local = local;
  }

  /** A probe file written and removed, and the volume's free space. */
  async writableProblem(): Promise<string | undefined> {
    const probe = path.join(this.dir, `.probe-${randomUUID()}`);
    try {
      await writeFile(probe, 'probe');
      await rm(probe, { force: true });
      const { availableBytes } = await readDiskUsage(this.dir, systemStatfs);
      if (availableBytes < minFreeRecordingBytes) return 'the recordings volume is full';
      return undefined;
    } catch (error) {
      return `the recordings directory cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }

  /** The file that holds one part of a recording, for tools and tests that work on files. */
  file(sid: string, part: RecordingPart): string {
    return this.local.path(recordingBlobName(sid, part));
  }
}
