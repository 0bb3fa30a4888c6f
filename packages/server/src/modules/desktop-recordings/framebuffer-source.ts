/**
 * The screen a desktop session shows, as the proxy decodes it (VNC's RFB in wings/desktops/rfb,
 * later RDP), and what the recorder reads.
 */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FramebufferSource {
  readonly width: number;
  readonly height: number;
  /** RGBA, width*height*4 bytes, rows top to bottom; current after each update. */
  pixels(): Uint8Array;
  /**
   * Work `pixels()` would do, done ahead off the event loop where it can be (decoding deferred
   * JPEG), resolving with a reader of the screen as of this call: what changes meanwhile is
   * reported by updates that come after it. Undefined when there is none; never rejects.
   */
  prepare?(): Promise<() => Uint8Array> | undefined;
  /** Rectangles whose pixels changed; returns the unsubscribe. */
  onUpdate(listener: (rects: Rect[]) => void): () => void;
  /** The screen's new size (the pixels are of that size from then on); returns the unsubscribe. */
  onResize(listener: (width: number, height: number) => void): () => void;
}
