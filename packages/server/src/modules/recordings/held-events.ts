import type { CastEvent } from './cast-encoder.js';

/**
 * Block sizes: a member's first block is small (an interactive session holds a few keystrokes'
 * echo per member), the next ones large (the recorder hands a member over at about 256 KiB).
 */
const firstBlockBytes = 4 * 1024;
const blockBytes = 256 * 1024;

/**
 * Recording events waiting to become one gzip member. Output is copied into blocks this class
 * owns (unpooled memory), so that they can be handed to the encoder's thread whole; an event's
 * bytes never span two blocks.
 */
export class HeldEvents {
  private events: CastEvent[] = [];
  private blocks: Uint8Array[] = [];
  private used = 0;
  /** Bytes held, output and text alike. */
  bytes = 0;

  get empty(): boolean {
    return this.events.length === 0;
  }

  /**
   * Output at the same instant as the output before it extends that event (the same cast, in
   * fewer lines): a flood arrives in SSH packets of a few KiB, several per millisecond.
   */
  output(t: number, data: Uint8Array): void {
    let block = this.blocks.at(-1);
    const last = this.events.at(-1);
    if (
      block &&
      last &&
      'block' in last &&
      last.t === t &&
      last.block === this.blocks.length - 1 &&
      last.end === this.used &&
      block.length - this.used >= data.length
    ) {
      block.set(data, this.used);
      this.used += data.length;
      last.end = this.used;
      this.bytes += data.length;
      return;
    }
    if (!block || block.length - this.used < data.length) {
      const size = this.blocks.length === 0 ? firstBlockBytes : blockBytes;
      block = new Uint8Array(Math.max(size, data.length));
      this.blocks.push(block);
      this.used = 0;
    }
    block.set(data, this.used);
    const start = this.used;
    this.used += data.length;
    this.events.push({ t, kind: 'o', block: this.blocks.length - 1, start, end: this.used });
    this.bytes += data.length;
  }

  text(event: CastEvent & { text: string }): void {
    this.events.push(event);
    this.bytes += event.text.length;
  }

  line(line: string): void {
    this.events.push({ line });
    this.bytes += line.length;
  }

  /** Everything held, handed over; this is empty again. */
  take(): { events: CastEvent[]; blocks: Uint8Array[] } {
    const taken = { events: this.events, blocks: this.blocks };
    this.events = [];
    this.blocks = [];
    this.used = 0;
    this.bytes = 0;
    return taken;
  }
}
