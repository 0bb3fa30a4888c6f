import { RdpProtocolError } from './rdp-wire.js';

/**
 * The clipboard over RDP (MS-RDPECLIP): the static virtual channel `cliprdr`, its chunks
 * (MS-RDPBCGR 2.2.6.1, CHANNEL_PDU_HEADER) and the text formats only. The client says what it
 * has with a Format List and hands the data over when asked; the server does the same the other
 * way. Only text passes (CF_UNICODETEXT, or CF_TEXT from servers that offer only that).
 */

export const clipboardChannelName = 'cliprdr';
/** CHANNEL_OPTION_INITIALIZED | ENCRYPT_RDP | COMPRESS_RDP | SHOW_PROTOCOL. */
export const clipboardChannelOptions = 0x80000000 | 0x40000000 | 0x00800000 | 0x00200000;

const msg = {
  monitorReady: 0x0001,
  formatList: 0x0002,
  formatListResponse: 0x0003,
  formatDataRequest: 0x0004,
  formatDataResponse: 0x0005,
  clipCaps: 0x0007,
} as const;
const cfText = 1;
const cfUnicodeText = 13;
/** The chunk size every server takes (CHANNEL_CHUNK_LENGTH). */
const chunkBytes = 1600;

export interface ClipboardChannelEvents {
  /** Sends a channel PDU (already chunked) to the server. */
  send(chunk: Buffer): void;
  /** The desktop's clipboard holds this text now. */
  onText(text: string): void;
}

/**
 * One session's clipboard channel: reassembles the server's chunks, answers its messages, and
 * offers the browser's text when `setText` is called.
 */
export class ClipboardChannel {
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #local = '';
  /** What the server offered last: the format to ask for. */
  #serverFormat = 0;

  constructor(private readonly events: ClipboardChannelEvents) {}

  /** A chunk from the server (CHANNEL_PDU_HEADER and its data). */
  receive(chunk: Buffer): void {
    if (chunk.length < 8) throw new RdpProtocolError('a virtual channel chunk cut short');
    const total = chunk.readUInt32LE(0);
    const flags = chunk.readUInt32LE(4);
    if (flags & 0x01) {
      this.#pending = [];
      this.#pendingLength = 0;
    }
    this.#pending.push(chunk.subarray(8));
    this.#pendingLength += chunk.length - 8;
    if (this.#pendingLength > 4 * 1024 * 1024) {
      throw new RdpProtocolError('a clipboard message over 4 MiB');
    }
    if (flags & 0x02 || this.#pendingLength >= total) {
      const message = Buffer.concat(this.#pending);
      this.#pending = [];
      this.#pendingLength = 0;
      this.#onMessage(message);
    }
  }

  /** The browser's clipboard text, offered to the desktop (it asks for it when it pastes). */
  setText(text: string): void {
    this.#local = text;
    this.#write(msg.formatList, 0, formatList([cfUnicodeText]));
  }

  #onMessage(message: Buffer): void {
    if (message.length < 8) return;
    const type = message.readUInt16LE(0);
    const flags = message.readUInt16LE(2);
    const body = message.subarray(8, 8 + message.readUInt32LE(4));
    switch (type) {
      case msg.monitorReady:
        // General capability: version 2, short format names.
        this.#write(
          msg.clipCaps,
          0,
          Buffer.from([1, 0, 0, 0, 1, 0, 12, 0, 2, 0, 0, 0, 0, 0, 0, 0]),
        );
        this.#write(msg.formatList, 0, formatList(this.#local ? [cfUnicodeText] : []));
        break;
      case msg.formatList: {
        this.#write(msg.formatListResponse, 0x0001, Buffer.alloc(0));
        const formats = formatIds(body);
        this.#serverFormat = formats.includes(cfUnicodeText)
          ? cfUnicodeText
          : formats.includes(cfText)
            ? cfText
            : 0;
        if (this.#serverFormat) this.#write(msg.formatDataRequest, 0, u32(this.#serverFormat));
        break;
      }
      case msg.formatDataRequest: {
        const format = body.length >= 4 ? body.readUInt32LE(0) : 0;
        const data =
          format === cfUnicodeText
            ? Buffer.from(`${this.#local}\0`, 'utf16le')
            : Buffer.from(`${this.#local}\0`, 'latin1');
        this.#write(msg.formatDataResponse, 0x0001, data);
        break;
      }
      case msg.formatDataResponse:
        if (flags & 0x0001 && this.#serverFormat) {
          const text =
            this.#serverFormat === cfUnicodeText
              ? body.toString('utf16le')
              : body.toString('latin1');
          this.events.onText(text.replace(/\0.*$/s, ''));
        }
        break;
    }
  }

  #write(type: number, flags: number, body: Buffer): void {
    const message = Buffer.alloc(8 + body.length);
    message.writeUInt16LE(type, 0);
    message.writeUInt16LE(flags, 2);
    message.writeUInt32LE(body.length, 4);
    body.copy(message, 8);
    for (let at = 0; at < message.length || at === 0; at += chunkBytes) {
      const piece = message.subarray(at, at + chunkBytes);
      const header = Buffer.alloc(8);
      header.writeUInt32LE(message.length, 0);
      const first = at === 0 ? 0x01 : 0;
      const last = at + chunkBytes >= message.length ? 0x02 : 0;
      header.writeUInt32LE(first | last | 0x10, 4); // SHOW_PROTOCOL
      this.events.send(Buffer.concat([header, piece]));
    }
  }
}

const u32 = (value: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
};

/** Short format names (2.2.3.1.1.1): the id and 32 bytes of (empty) name each. */
function formatList(ids: number[]): Buffer {
  return Buffer.concat(ids.map((id) => Buffer.concat([u32(id), Buffer.alloc(32)])));
}

/**
 * The format ids of a Format List, short names (36 bytes each) or long ones (an id, then a
 * NUL-terminated UTF-16 name): a list whose length is a multiple of 36 is read as short names.
 */
function formatIds(body: Buffer): number[] {
  const ids: number[] = [];
  if (body.length % 36 === 0) {
    for (let at = 0; at + 36 <= body.length; at += 36) ids.push(body.readUInt32LE(at));
    return ids;
  }
  for (let at = 0; at + 4 <= body.length;) {
    ids.push(body.readUInt32LE(at));
    at += 4;
    while (at + 1 < body.length && (body[at] !== 0 || body[at + 1] !== 0)) at += 2;
    at += 2;
  }
  return ids;
}
