import type { DesktopRecordingEvent } from '@postern/contracts';

/** Where a desktop recording is drawn: a canvas in the browser, a recorder of calls in tests. */
export interface DesktopSurface {
  /** A new screen of this size, blank. */
  resize(width: number, height: number): void;
  /** RGBA rows of a rectangle, at x, y. */
  draw(x: number, y: number, width: number, height: number, rgba: Uint8ClampedArray): void;
}

/** zlib's inflate (the browser's `DecompressionStream('deflate')`). */
export type Inflate = (deflated: Uint8Array) => Promise<Uint8Array>;

type Drawable = Extract<DesktopRecordingEvent, { type: 'screen' | 'rect' }>;

/**
 * Draws a recording's events in order: a `screen` blanks the surface at its size, a `rect` is
 * inflated (asynchronously) and drawn. A keyframe covers the whole screen, so the rectangles
 * still waiting before one are dropped unseen: after a seek, or when inflating falls behind,
 * the queue never holds more than one keyframe's worth.
 */
export class RectDrawer {
  private queue: Drawable[] = [];
  private running = false;
  private disposed = false;

  constructor(
    private readonly surface: DesktopSurface,
    private readonly inflate: Inflate,
  ) {}

  draw(event: DesktopRecordingEvent): void {
    if (this.disposed || (event.type !== 'screen' && event.type !== 'rect')) return;
    if (event.type === 'rect' && event.keyframe) {
      this.queue = this.queue.filter((queued) => queued.type === 'screen');
    }
    this.queue.push(event);
    if (!this.running) void this.run();
  }

  /** Resolves once everything queued is drawn (tests wait for it). */
  async idle(): Promise<void> {
    while (this.running) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  dispose(): void {
    this.disposed = true;
    this.queue = [];
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      for (let event = this.queue.shift(); event; event = this.queue.shift()) {
        if (event.type === 'screen') this.surface.resize(event.width, event.height);
        else await this.drawRect(event);
        if (this.disposed) return;
      }
    } finally {
      this.running = false;
    }
  }

  private async drawRect(event: Extract<Drawable, { type: 'rect' }>): Promise<void> {
    const { x, y, width, height } = event;
    let rows: Uint8Array;
    try {
      rows = await this.inflate(fromBase64(event.rgba));
    } catch {
      return; // a rectangle that does not inflate is not drawn; the next keyframe repairs it
    }
    if (this.disposed || rows.length !== width * height * 4) return;
    const rgba = new Uint8ClampedArray(rows.buffer, rows.byteOffset, rows.length);
    this.surface.draw(x, y, width, height, rgba);
  }
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
