import type { ChannelEvents, ChannelExit, SessionChannel } from './session-channel.js';

/**
 * A session channel held in memory: a real implementation of SessionChannel (no network, no
 * protocol), to show that a live session runs over any channel. The test plays the program at
 * the far end with `print`, `exitWith` and `hangUp`, and reads what the session wrote, paused,
 * resized and signalled from the public fields.
 */
export class MemoryChannel implements SessionChannel {
  /** Input the session wrote and the program has not read yet, in order. */
  private unread: Buffer[] = [];
  readonly signals: string[] = [];
  size: { w: number; h: number } | undefined;
  paused = false;
  closed = false;
  /** Output printed while paused (or before start): held here, like an unread socket. */
  private held: Buffer[] = [];
  private events: ChannelEvents | undefined;

  /** Beyond this many unread input bytes, `write` reports the channel full. */
  constructor(private readonly inputCapacity = 64 * 1024) {}

  start(events: ChannelEvents): void {
    this.events = events;
    this.drain();
  }

  write(data: string | Uint8Array): boolean {
    if (this.closed) return false;
    this.unread.push(Buffer.from(data));
    return this.unreadBytes() < this.inputCapacity;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.drain();
  }

  resize(w: number, h: number): void {
    this.size = { w, h };
  }

  signal(name: string): void {
    this.signals.push(name);
  }

  /** Closes both ends; the session hears of it on the next turn, as over a socket. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    queueMicrotask(() => this.events?.closed());
  }

  heldBytes(): number {
    return this.held.reduce((n, chunk) => n + chunk.length, 0);
  }

  /** The program reads its input: what the session wrote since the last read, as text. */
  readInput(): string {
    const text = Buffer.concat(this.unread).toString('utf8');
    this.unread = [];
    return text;
  }

  /** The program prints: delivered at once unless the session paused the channel. */
  print(data: string | Uint8Array): void {
    if (this.closed) return;
    this.held.push(Buffer.from(data));
    this.drain();
  }

  /** The program ends; the channel closes after it. */
  exitWith(exit: ChannelExit): void {
    this.events?.exit(exit);
    this.hangUp();
  }

  /** The far end goes away: `lostReason` when the connection failed rather than the program ended. */
  hangUp(lostReason?: string): void {
    this.closed = true;
    this.events?.closed(lostReason);
  }

  private drain(): void {
    while (this.events && !this.paused && this.held.length > 0) {
      this.events.output(this.held.shift()!);
    }
  }

  private unreadBytes(): number {
    return this.unread.reduce((n, chunk) => n + chunk.length, 0);
  }
}
