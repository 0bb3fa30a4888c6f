import type { Duplex } from 'node:stream';

/**
 * Puts frames on the transport in the order they were queued. A frame with a header block is
 * queued as the promise of its bytes (compression is asynchronous, and the zlib context demands
 * that blocks go out in the order they were compressed), so the frames queued behind it wait
 * for it rather than overtaking it.
 */
export class FrameWriter {
  #queue: (Buffer | Promise<Buffer>)[] = [];
  #running = false;
  #failed = false;
  #idle: (() => void)[] = [];

  constructor(
    private readonly transport: Duplex,
    private readonly fail: (error: Error) => void,
  ) {}

  push(frame: Buffer | Promise<Buffer>): void {
    if (this.#failed) return;
    this.#queue.push(frame);
    if (!this.#running) void this.#run();
  }

  /**
   * Resolves once everything queued so far is in the transport and the transport wants more:
   * a stream's writer waits for this, so a slow peer holds writers back instead of the queue
   * growing. Also resolves when the transport is gone (the writes then go nowhere).
   */
  drained(): Promise<void> {
    if (!this.#running && this.#queue.length === 0) return this.#transportDrained();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0) {
        const next = this.#queue.shift()!;
        const bytes = Buffer.isBuffer(next) ? next : await next;
        if (this.transport.destroyed || this.transport.writableEnded) continue;
        this.transport.write(bytes);
      }
    } catch (error) {
      this.#failed = true;
      this.#queue = [];
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
    this.#running = false;
    const waiters = this.#idle;
    this.#idle = [];
    if (waiters.length > 0) {
      await this.#transportDrained();
      for (const wake of waiters) wake();
    }
  }

  #transportDrained(): Promise<void> {
    const transport = this.transport;
    if (!transport.writableNeedDrain || transport.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        transport.off('drain', done);
        transport.off('close', done);
        resolve();
      };
      transport.on('drain', done);
      transport.on('close', done);
    });
  }
}
