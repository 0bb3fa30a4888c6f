/**
 * The output a client was sent and has not acknowledged yet, kept so that a client whose
 * connection dropped gets exactly what it missed on its next socket (docs/protocol.md §6.1).
 * Offsets count `r` payload bytes from the session's start, as the client counts them. Flow
 * control bounds what is kept: the session stops reading from the program once a party is
 * `terminalFlowControl.pauseAbove` bytes behind, so the log holds about that much at most.
 * The chunks are the frames' own payloads, kept by reference, never copied.
 */
export class OutputLog {
  private chunks: Uint8Array[] = [];
  /** The offset of the first byte kept: everything before it was acknowledged. */
  private start = 0;
  /** The offset after the last byte sent. */
  private end = 0;

  get sent(): number {
    return this.end;
  }

  get acknowledged(): number {
    return this.start;
  }

  append(payload: Uint8Array): void {
    if (payload.length === 0) return;
    this.chunks.push(payload);
    this.end += payload.length;
  }

  /** The client acknowledged `bytes` more; more than was sent counts as all of it. */
  acknowledge(bytes: number): void {
    this.dropBefore(Math.min(this.end, this.start + bytes));
  }

  /** Whether a client that received `offset` bytes can be given the rest. */
  holds(offset: number): boolean {
    return offset >= this.start && offset <= this.end;
  }

  /**
   * What comes after `offset`, which the client says it received: everything before it counts
   * as acknowledged from now on. Undefined when the log no longer (or never) held that offset.
   */
  after(offset: number): Uint8Array[] | undefined {
    if (!this.holds(offset)) return undefined;
    this.dropBefore(offset);
    return [...this.chunks];
  }

  private dropBefore(offset: number): void {
    while (this.start < offset) {
      const first = this.chunks[0];
      if (!first) break;
      const cut = offset - this.start;
      if (cut >= first.length) {
        this.chunks.shift();
        this.start += first.length;
      } else {
        this.chunks[0] = first.subarray(cut);
        this.start += cut;
      }
    }
  }
}
