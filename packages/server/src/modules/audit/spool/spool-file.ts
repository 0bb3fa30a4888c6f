import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEvent } from '../audit.types.js';

const fileName = 'events.jsonl';

/**
 * The audit events the store could not take, in order: one JSON line per event, appended and
 * fsync'd before `append` resolves, so an event a caller was told about survives a crash.
 * Operations run one at a time, in the order they were called.
 */
export class SpoolFile {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: string,
    private bytes: number,
  ) {}

  /** Opens the spool in `dir`; a last line torn by a crash mid-write is dropped. */
  static async open(dir: string): Promise<SpoolFile> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, fileName);
    const spool = new SpoolFile(file, 0);
    const lines = await spool.readLines();
    await spool.rewrite(lines.filter(parses));
    return spool;
  }

  /** Bytes on disk (all complete lines). */
  get size(): number {
    return this.bytes;
  }

  /**
   * Appends one event unless it would take the spool past `maxBytes`; says whether it did. The
   * call is queued synchronously, so appends keep the order they were called in.
   */
  append(event: AuditEvent, maxBytes: number): Promise<boolean> {
    const line = `${JSON.stringify(event)}\n`;
    const length = Buffer.byteLength(line);
    return this.locked(async () => {
      if (this.bytes + length > maxBytes) return false;
      const handle = await open(this.file, 'a', 0o600);
      try {
        await handle.write(line);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      this.bytes += length;
      return true;
    });
  }

  /** Every spooled event, oldest first. */
  readAll(): Promise<AuditEvent[]> {
    return this.locked(async () =>
      (await this.readLines()).map((l) => JSON.parse(l) as AuditEvent),
    );
  }

  /** Removes the `count` oldest events (those now in the store); the rest stay, in order. */
  dropFirst(count: number): Promise<void> {
    return this.locked(async () => this.rewrite((await this.readLines()).slice(count)));
  }

  /** Runs `fn` after every operation called before it, and before any called after. */
  locked<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async readLines(): Promise<string[]> {
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    return text.split('\n').filter((line) => line !== '');
  }

  /** Replaces the file by a complete new one (write, fsync, rename), or removes it when empty. */
  private async rewrite(lines: string[]): Promise<void> {
    if (lines.length === 0) {
      await rm(this.file, { force: true });
      this.bytes = 0;
      return;
    }
    const text = lines.map((line) => `${line}\n`).join('');
    const temporary = `${this.file}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.write(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
    this.bytes = Buffer.byteLength(text);
  }
}

function parses(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
