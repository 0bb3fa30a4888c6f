import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Keeps a headless terminal per live session so that a joiner first sees the current screen, not
 * only what comes next. Parsing terminal output costs about as much as the proxy's own work, so
 * it runs in ONE worker thread shared by every session: the proxy's event loop never waits for
 * it, and a session costs a small terminal buffer rather than a thread.
 *
 * Output is not posted chunk by chunk: it is copied into per-session blocks and handed over
 * (transferred, not cloned) in one batch at most every `flushDelayMs` (250 ms), and only once
 * the worker has parsed the previous batch. A flood's parsing thus costs at most
 * `maxPendingBytes` per batch: the mirror parsed nearly every byte of a browser-paced flood
 * with 50 ms batches, about as much CPU as the relay itself on a small machine; a snapshot
 * hands over what is pending first, so it is as exact as before. The headless terminal parses slower than SSH delivers a flood
 * (`cat` of a big file), so between two batches a session keeps only its last
 * `maxPendingBytes`: far more than a screen and its scrollback, which is all a snapshot shows.
 * Without that bound the worker's queue grew with the whole flood (gigabytes of RSS), and
 * xterm threw once 50 MB were queued, which killed the mirror of every session.
 *
 * Messages to the worker are handled in order, and a snapshot first hands over what is pending,
 * so it reflects exactly the output written before it was asked for; the caller buffers what
 * arrives meanwhile.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { Terminal } = require(workerData.headless);
const { SerializeAddon } = require(workerData.serialize);
const terminals = new Map();
function write(batch, done) {
  let left = batch.length + 1;
  const settle = () => { if (--left === 0) done(); };
  for (const { id, chunks } of batch) {
    const entry = terminals.get(id);
    if (!entry) { settle(); continue; }
    for (const chunk of chunks) entry.terminal.write(chunk);
    // write('') calls back once every earlier write has been parsed.
    entry.terminal.write('', settle);
  }
  settle();
}
parentPort.on('message', (m) => {
  if (m.op === 'open') {
    const terminal = new Terminal({ cols: m.cols, rows: m.rows, scrollback: m.scrollback, allowProposedApi: true });
    const serializer = new SerializeAddon();
    terminal.loadAddon(serializer);
    terminals.set(m.id, { terminal, serializer });
    return;
  }
  if (m.op === 'write') return write(m.batch, () => parentPort.postMessage({ flushed: m.seq }));
  const entry = terminals.get(m.id);
  if (m.op === 'snapshot') {
    if (!entry) return parentPort.postMessage({ req: m.req, screen: '' });
    // The session may close while the snapshot waits for the parser: a disposed terminal has no screen.
    entry.terminal.write('', () => parentPort.postMessage({
      req: m.req,
      screen: terminals.get(m.id) === entry ? entry.serializer.serialize() : '',
    }));
    return;
  }
  if (!entry) return;
  // xterm parses writes later but resizes at once: resize only after what came before is parsed.
  if (m.op === 'resize') entry.terminal.write('', () => entry.terminal.resize(m.cols, m.rows));
  else if (m.op === 'close') { entry.terminal.dispose(); terminals.delete(m.id); }
});
`;

type Reply = { req: number; screen: string } | { flushed: number };

export interface ScreenMirrorOptions {
  scrollback?: number;
  /** Output kept per session between two batches; older output is dropped unparsed. */
  maxPendingBytes?: number;
  /** The shortest time between two batches handed to the worker. */
  flushDelayMs?: number;
}

const blockBytes = 65536;

/** Output of one session waiting for the next batch, in blocks this mirror owns. */
class Pending {
  blocks: Uint8Array[] = [];
  /** Bytes used in the last block. */
  used = 0;
  bytes = 0;
  /**
   * A block dropped from the front, never handed over, for the next one: in a flood nearly all
   * output is dropped unparsed, and a new zeroed block for each 64 KiB of it (and its garbage)
   * cost the event loop more than copying the output did.
   */
  #spare: Uint8Array | undefined;

  append(data: Uint8Array, limit: number): void {
    let last = this.blocks.at(-1);
    let offset = 0;
    while (offset < data.length) {
      if (!last || this.used === last.length) {
        // Unpooled memory, so each block's ArrayBuffer can be transferred to the worker whole.
        const size = Math.max(this.bytes === 0 ? 4096 : blockBytes, data.length - offset);
        last = size === blockBytes && this.#spare ? this.#spare : new Uint8Array(size);
        if (last === this.#spare) this.#spare = undefined;
        this.blocks.push(last);
        this.used = 0;
      }
      const n = Math.min(last.length - this.used, data.length - offset);
      last.set(data.subarray(offset, offset + n), this.used);
      this.used += n;
      offset += n;
      this.bytes += n;
    }
    // Drop whole blocks from the front while what stays is still over the limit.
    while (this.blocks.length > 1 && this.bytes - this.blocks[0]!.length >= limit) {
      const dropped = this.blocks.shift()!;
      this.bytes -= dropped.length;
      if (dropped.length === blockBytes) this.#spare = dropped;
    }
  }

  /** The pending bytes as views over their blocks; empties this. */
  take(): Uint8Array[] {
    const chunks = this.blocks.map((block, i) =>
      i === this.blocks.length - 1 ? block.subarray(0, this.used) : block,
    );
    this.blocks = [];
    this.used = 0;
    this.bytes = 0;
    return chunks;
  }
}

export class ScreenMirror {
  private worker: Worker | undefined;
  private nextReq = 1;
  private nextSeq = 1;
  private readonly pending = new Map<number, (screen: string) => void>();
  private readonly output = new Map<string, Pending>();
  private readonly scrollback: number;
  private readonly maxPendingBytes: number;
  private readonly flushDelayMs: number;
  /** Batches handed to the worker and not parsed yet. */
  private inFlight = 0;
  /** Output bytes handed to the worker so far (what it had to parse). */
  handedOver = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: ScreenMirrorOptions = {}) {
    this.scrollback = options.scrollback ?? 200;
    this.maxPendingBytes = options.maxPendingBytes ?? 256 * 1024;
    this.flushDelayMs = options.flushDelayMs ?? 250;
  }

  open(id: string, cols: number, rows: number): void {
    this.post({ op: 'open', id, cols, rows, scrollback: this.scrollback });
  }

  write(id: string, data: Uint8Array): void {
    if (data.length === 0) return;
    let pending = this.output.get(id);
    if (!pending) {
      pending = new Pending();
      this.output.set(id, pending);
    }
    pending.append(data, this.maxPendingBytes);
    this.schedule();
  }

  resize(id: string, cols: number, rows: number): void {
    this.flush([id]);
    this.post({ op: 'resize', id, cols, rows });
  }

  close(id: string): void {
    this.output.delete(id);
    this.post({ op: 'close', id });
  }

  /** The screen as escape sequences that redraw it (and its modes) on a fresh terminal. */
  snapshot(id: string): Promise<string> {
    this.flush([id]);
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.pending.set(req, resolve);
      this.post({ op: 'snapshot', id, req });
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.output.clear();
    this.inFlight = 0;
    for (const resolve of this.pending.values()) resolve('');
    this.pending.clear();
    if (worker) await worker.terminate();
  }

  private schedule(): void {
    if (this.timer || this.inFlight > 0 || this.output.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.flushDelayMs);
    this.timer.unref();
  }

  /** Hands the pending output of `ids` (default: every session) to the worker in one batch. */
  private flush(ids: Iterable<string> = this.output.keys()): void {
    const batch: { id: string; chunks: Uint8Array[] }[] = [];
    const transfer: ArrayBuffer[] = [];
    for (const id of [...ids]) {
      const pending = this.output.get(id);
      if (!pending) continue;
      this.output.delete(id);
      const chunks = pending.take();
      for (const chunk of chunks) {
        transfer.push(chunk.buffer as ArrayBuffer);
        this.handedOver += chunk.length;
      }
      batch.push({ id, chunks });
    }
    if (batch.length === 0) return;
    this.inFlight++;
    this.post({ op: 'write', seq: this.nextSeq++, batch }, transfer);
  }

  private post(message: object, transfer: ArrayBuffer[] = []): void {
    this.ensureWorker().postMessage(message, transfer);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        headless: require.resolve('@xterm/headless'),
        serialize: require.resolve('@xterm/addon-serialize'),
      },
    });
    worker.on('message', (reply: Reply) => {
      if ('flushed' in reply) {
        this.inFlight = Math.max(0, this.inFlight - 1);
        this.schedule();
        return;
      }
      this.pending.get(reply.req)?.(reply.screen);
      this.pending.delete(reply.req);
    });
    worker.on('error', () => {
      // A crashed mirror must not take sessions down: joiners then get only new output.
      for (const resolve of this.pending.values()) resolve('');
      this.pending.clear();
      this.inFlight = 0;
      this.worker = undefined;
    });
    // Do not keep the process alive just for the mirror.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
