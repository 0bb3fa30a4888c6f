import { RdpProtocolError } from './rdp-wire.js';

/** Fast-path update codes (2.2.9.1.2.1) the client acts on; the others are read past. */
export const fastPathUpdate = { bitmap: 0x1 } as const;

const fragment = { single: 0, last: 1, first: 2, next: 3 } as const;

/** The most one reassembled update may take: a 4096×4096 screen of 32-bit pixels, and some. */
const maxUpdateBytes = 80 * 1024 * 1024;

/**
 * Fast-path output (MS-RDPBCGR 2.2.9.1.2): the compact framing servers use for screen updates
 * once the client says it reads it (FASTPATH_OUTPUT_SUPPORTED). Some servers send bitmaps no
 * other way (FreeRDP's). Updates split over several PDUs are put back together here; each
 * whole one goes to `onUpdate` with its code, its data as the slow-path update's from
 * updateType on.
 */
export class FastPathOutput {
  readonly #onUpdate: (code: number, data: Buffer) => void;
  #fragments: Buffer[] = [];
  #fragmentBytes = 0;

  constructor(onUpdate: (code: number, data: Buffer) => void) {
    this.#onUpdate = onUpdate;
  }

  /** A TS_FP_UPDATE_PDU: its first byte (fpOutputHeader) and what follows its length. */
  receive(header: number, body: Buffer): void {
    // Encryption and checksums are RDP's own security, never negotiated here (TLS carries it).
    if (header >> 6) throw new RdpProtocolError('an encrypted fast-path update');
    for (let at = 0; at < body.length;) {
      const updateHeader = body[at]!;
      const code = updateHeader & 0x0f;
      const fragmentation = (updateHeader >> 4) & 0x03;
      // Bulk compression is never offered (no INFO_COMPRESSION), so no compressionFlags byte.
      if (updateHeader >> 6) throw new RdpProtocolError('a compressed fast-path update');
      if (at + 3 > body.length) throw new RdpProtocolError('a fast-path update cut short');
      const size = body.readUInt16LE(at + 1);
      const data = body.subarray(at + 3, at + 3 + size);
      if (data.length < size) throw new RdpProtocolError('a fast-path update cut short');
      at += 3 + size;
      this.#fragment(code, fragmentation, data);
    }
  }

  #fragment(code: number, fragmentation: number, data: Buffer): void {
    if (fragmentation === fragment.single) return this.#onUpdate(code, data);
    if (fragmentation === fragment.first) this.#reset();
    this.#fragmentBytes += data.length;
    if (this.#fragmentBytes > maxUpdateBytes) {
      throw new RdpProtocolError('a fast-path update larger than any screen');
    }
    this.#fragments.push(Buffer.from(data));
    if (fragmentation === fragment.last) {
      const whole = Buffer.concat(this.#fragments);
      this.#reset();
      this.#onUpdate(code, whole);
    }
  }

  #reset(): void {
    this.#fragments = [];
    this.#fragmentBytes = 0;
  }
}
