import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Keeps a headless terminal per live session so that a joiner first sees the current screen, not
 * only what comes next. Parsing terminal output costs about as much as the proxy's own work, so
 * it runs in ONE worker thread shared by every session: the proxy's event loop never waits for
 * it, and a session costs a small terminal buffer rather than a thread.
 *
 * Messages to the worker are handled in order, so a snapshot reflects exactly the output written
 * before it was asked for; the caller buffers what arrives meanwhile.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { Terminal } = require(workerData.headless);
const { SerializeAddon } = require(workerData.serialize);
const terminals = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'open') {
    const terminal = new Terminal({ cols: m.cols, rows: m.rows, scrollback: m.scrollback, allowProposedApi: true });
    const serializer = new SerializeAddon();
    terminal.loadAddon(serializer);
    terminals.set(m.id, { terminal, serializer });
    return;
  }
  const entry = terminals.get(m.id);
  if (m.op === 'snapshot') {
    if (!entry) return parentPort.postMessage({ req: m.req, screen: '' });
    // write('') runs after every earlier write has been parsed.
    entry.terminal.write('', () => parentPort.postMessage({ req: m.req, screen: entry.serializer.serialize() }));
    return;
  }
  if (!entry) return;
  if (m.op === 'write') entry.terminal.write(m.data);
  // xterm parses writes later but resizes at once: resize only after what came before is parsed.
  else if (m.op === 'resize') entry.terminal.write('', () => entry.terminal.resize(m.cols, m.rows));
  else if (m.op === 'close') { entry.terminal.dispose(); terminals.delete(m.id); }
});
`;

type Reply = { req: number; screen: string };

export class ScreenMirror {
  private worker: Worker | undefined;
  private nextReq = 1;
  private readonly pending = new Map<number, (screen: string) => void>();

  constructor(private readonly scrollback = 200) {}

  open(id: string, cols: number, rows: number): void {
    this.post({ op: 'open', id, cols, rows, scrollback: this.scrollback });
  }

  write(id: string, data: Uint8Array): void {
    this.post({ op: 'write', id, data });
  }

  resize(id: string, cols: number, rows: number): void {
    this.post({ op: 'resize', id, cols, rows });
  }

  close(id: string): void {
    this.post({ op: 'close', id });
  }

  /** The screen as escape sequences that redraw it (and its modes) on a fresh terminal. */
  snapshot(id: string): Promise<string> {
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.pending.set(req, resolve);
      this.post({ op: 'snapshot', id, req });
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve('');
    this.pending.clear();
    if (worker) await worker.terminate();
  }

  private post(message: object): void {
    this.ensureWorker().postMessage(message);
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
      this.pending.get(reply.req)?.(reply.screen);
      this.pending.delete(reply.req);
    });
    worker.on('error', () => {
      // A crashed mirror must not take sessions down: joiners then get only new output.
      for (const resolve of this.pending.values()) resolve('');
      this.pending.clear();
      this.worker = undefined;
    });
    // Do not keep the process alive just for the mirror.
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
