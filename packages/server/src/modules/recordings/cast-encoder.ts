import { Worker } from 'node:worker_threads';
import { incompleteUtf8Tail } from './cast-line.js';
import { storedGzipMember } from './stored-gzip.js';

/** What a `probe` member (MemberLevel) compresses to decide. */
const probeSampleBytes = 32 * 1024;

/**
 * Turns held recording events into asciicast lines and one gzip member, on ONE worker thread
 * shared by every recording in the process. JSON-escaping terminal output and compressing it
 * cost about as much per byte as the rest of the relay together (a `cat` of a big file through
 * the proxy ran at 0.77x of `ssh -tt` with it on the event loop, 0.97x without): on the worker,
 * the session's hot path only copies output into blocks that are handed over, not cloned.
 *
 * The worker handles requests in order, so members come back in the order they were asked for,
 * and it extends each recording's chunk hash chain (recording-integrity.ts) as it makes them:
 * the chain starts from the seed the recording's first request carries, and `forget` drops it.
 * A UTF-8 character split between two outputs (two reads of the SSH channel) is held back and
 * recorded whole with the next one (cast-line.ts), not as two U+FFFD.
 */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const { isUtf8 } = require('node:buffer');
const { createHash } = require('node:crypto');
const { crc32, gzipSync } = require('node:zlib');
${incompleteUtf8Tail}
${storedGzipMember}
const chains = new Map();
/** Per recording: the start of a UTF-8 character its last output ended with. */
const tails = new Map();
const lineEnd = Buffer.from('"]\\n');
function outputLine(recording, t, bytes, lines) {
  const tail = tails.get(recording);
  if (tail) { bytes = Buffer.concat([tail, bytes]); tails.delete(recording); }
  const held = incompleteUtf8Tail(bytes);
  if (held) { tails.set(recording, Buffer.from(bytes.subarray(bytes.length - held))); bytes = bytes.subarray(0, bytes.length - held); }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (!isUtf8(buffer)) {
    lines.push(Buffer.from(JSON.stringify([t, 'o', buffer.toString('utf8')]) + '\\n'));
    return;
  }
  // Valid UTF-8 is escaped byte for byte: read as latin1 each byte is one character, and
  // JSON.stringify escapes the same ones in both (controls, quote, backslash; never a character
  // from U+0020 up), so the latin1 bytes of the line are the UTF-8 line, and any cut between
  // bytes is a cut between characters. That skips decoding the output and encoding it back, and
  // pieces of 32 KiB keep every string V8 makes here out of its large-object space, which maps
  // and unmaps memory for each one (the two were most of the encoder's time in a flood).
  lines.push(Buffer.from('[' + JSON.stringify(t) + ',"o","', 'latin1'));
  for (let at = 0; at < buffer.length; at += 32768) {
    const piece = JSON.stringify(buffer.latin1Slice(at, Math.min(at + 32768, buffer.length)));
    lines.push(Buffer.from(piece.slice(1, -1), 'latin1'));
  }
  lines.push(lineEnd);
}
const probeSampleBytes = ${probeSampleBytes};
function encodeMember(cast, level) {
  if (level === 0) return storedGzipMember(cast, crc32);
  if (level === 'probe') {
    // Level 1 crawls on output that does not compress; its first 32 KiB tell whether to try.
    if (cast.length > 2 * probeSampleBytes) {
      const sample = gzipSync(cast.subarray(0, probeSampleBytes), { level: 1 });
      if (sample.length > probeSampleBytes / 2) return storedGzipMember(cast, crc32);
    }
    level = 1;
  }
  return gzipSync(cast, { level, chunkSize: 256 * 1024 });
}
parentPort.on('message', ({ op, id, recording, seed, events, blocks, level }) => {
  if (op === 'forget') { chains.delete(recording); tails.delete(recording); return; }
  try {
    const previous = chains.get(recording) ?? seed;
    if (previous === undefined) throw new Error('the chunk chain of this recording was lost');
    const lines = [];
    for (const e of events) {
      if (e.line !== undefined) { lines.push(Buffer.from(e.line)); continue; }
      if (e.text !== undefined) { lines.push(Buffer.from(JSON.stringify([e.t, e.kind, e.text]) + '\\n')); continue; }
      const block = blocks[e.block];
      if (!block || e.end > block.length) throw new Error('an output event outside its blocks');
      outputLine(recording, e.t, block.subarray(e.start, e.end), lines);
    }
    const cast = lines.length === 1 ? lines[0] : Buffer.concat(lines);
    const member = encodeMember(cast, level);
    const chain = createHash('sha256').update(previous).update(member).digest('hex');
    chains.set(recording, chain);
    // Handed over whole when it owns its memory; a small one may sit in Buffer's shared pool.
    const own = member.byteOffset === 0 && member.buffer.byteLength === member.length;
    const out = own ? member : new Uint8Array(member);
    parentPort.postMessage({ id, castLength: cast.length, member: out, chain }, [out.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error) });
  }
});
`;

/**
 * How a member is made: stored (0), compressed at level 1, or `probe`: compressed only if a
 * sample of it halves at level 1, else stored. A recorder storing incompressible output probes
 * now and then whether it compresses again; compressing a whole member of base64 at level 1
 * to find out took about as long as escaping it.
 */
export type MemberLevel = 0 | 1 | 'probe';

/**
 * One event of a member: output is a range of one of the member's blocks, resizes and markers
 * are text, and `line` is a whole line written as it is (the cast's header).
 */
export type CastEvent =
  | { t: number; kind: 'o'; block: number; start: number; end: number }
  | { t: number; kind: 'r' | 'm'; text: string }
  | { line: string };

export interface EncodedMember {
  /** Bytes of the cast lines before compression. */
  castLength: number;
  member: Buffer;
  /** The recording's chunk chain after this member. */
  chain: string;
}

/** Which recording a member belongs to; its first member carries the chain's seed. */
export interface MemberOf {
  recording: number;
  seed?: string;
}

type Reply =
  | { id: number; castLength: number; member: Uint8Array; chain: string }
  | { id: number; error: string };

export class CastEncoder {
  private worker: Worker | undefined;
  private nextId = 1;
  private nextRecording = 1;
  private readonly pending = new Map<
    number,
    { resolve: (m: EncodedMember) => void; reject: (e: Error) => void }
  >();

  /** A number for a new recording's members. */
  newRecording(): number {
    return this.nextRecording++;
  }

  /**
   * Encodes one member of `of.recording`, after its earlier ones. `blocks` are handed over: the
   * caller must not touch them afterwards.
   */
  encode(
    events: CastEvent[],
    blocks: Uint8Array[],
    level: MemberLevel,
    of: MemberOf,
  ): Promise<EncodedMember> {
    const id = this.nextId++;
    const worker = this.ensureWorker();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Waiting work keeps the process alive; an idle encoder does not.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(
        { id, events, blocks, level, ...of },
        blocks.map((block) => block.buffer as ArrayBuffer),
      );
    });
  }

  /** The recording is over: its chain is dropped once its last member is made. */
  forget(recording: number): void {
    this.worker?.postMessage({ op: 'forget', recording });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('the recording encoder stopped'));
    if (worker) await worker.terminate();
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in reply) return waiter.reject(new Error(`recording encoder: ${reply.error}`));
    const { member, castLength, chain } = reply;
    waiter.resolve({
      castLength,
      chain,
      member: Buffer.from(member.buffer, member.byteOffset, member.byteLength),
    });
  }

  private failAll(error: Error): void {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerSource, { eval: true });
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (error) => {
      // The recordings waiting on it fail (their policy decides for the session); the next
      // request starts a new worker.
      if (this.worker === worker) this.worker = undefined;
      this.failAll(error);
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/** The process's encoder: one worker thread, started on the first recording. */
export const castEncoder = new CastEncoder();
