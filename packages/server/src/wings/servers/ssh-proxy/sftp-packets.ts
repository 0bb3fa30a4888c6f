/**
 * Reads SFTP (draft-ietf-secsh-filexfer-02, what OpenSSH speaks) packets out of a byte stream
 * without holding them: the proxy passes the stream through untouched and only looks at each
 * packet's head (type, request id, paths, handles), so file data is never copied or buffered.
 */

export const SFTP = {
  INIT: 1,
  VERSION: 2,
  OPEN: 3,
  CLOSE: 4,
  READ: 5,
  WRITE: 6,
  LSTAT: 7,
  FSTAT: 8,
  SETSTAT: 9,
  FSETSTAT: 10,
  OPENDIR: 11,
  READDIR: 12,
  REMOVE: 13,
  MKDIR: 14,
  RMDIR: 15,
  REALPATH: 16,
  STAT: 17,
  RENAME: 18,
  READLINK: 19,
  SYMLINK: 20,
  STATUS: 101,
  HANDLE: 102,
  DATA: 103,
  NAME: 104,
  ATTRS: 105,
  EXTENDED: 200,
  EXTENDED_REPLY: 201,
} as const;

/** What the proxy reads of one packet. Strings are paths or handles, in packet order. */
export interface SftpPacketHead {
  type: number;
  /** Absent for INIT and VERSION, which carry a version instead. */
  id?: number;
  /** Up to two leading strings (paths, a handle, an extended request name and its first path). */
  strings: Buffer[];
  /** OPEN: pflags. STATUS: the status code. READ: the length asked. */
  number?: number;
  /** WRITE: bytes of data; DATA: bytes returned. */
  dataBytes?: number;
  /** The packet is larger than its head: what follows was not looked at. */
  length: number;
}

/** Paths and handles longer than this are cut in events; the packet itself is untouched. */
const headLimit = 8 * 1024;
/** A peer announcing more than this in one packet is not speaking SFTP (OpenSSH caps 256 KiB). */
export const maxPacketBytes = 4 * 1024 * 1024;

/**
 * How many bytes of a packet (from its length field on) make its head, judged from the `known`
 * bytes read so far: more than `known.length` means read more and ask again. A bulk copy is
 * DATA answers and WRITE requests, whose heads end where the file data starts (13 bytes, and
 * 25 plus the handle): the data is never read, unlike the paths other packets carry.
 */
function headBytes(known: Buffer): number {
  if (known.length < 4) return 4;
  const length = known.readUInt32BE(0);
  if (length === 0 || length > maxPacketBytes) throw new Error(`bad SFTP packet length ${length}`);
  if (known.length < 5) return 5;
  return 4 + Math.min(length, bodyHeadBytes(known));
}

/** Bytes of the body (type and on) that make the head of the packet whose type is `known[4]`. */
function bodyHeadBytes(known: Buffer): number {
  switch (known[4]) {
    case SFTP.DATA:
      return 1 + 4 + 4; // type, id, data length
    case SFTP.WRITE:
      // type, id, the handle's length; once that is known, the handle, offset and data length
      return known.length < 13 ? 9 : Math.min(9 + known.readUInt32BE(9) + 8 + 4, headLimit);
    default:
      return headLimit;
  }
}

/**
 * Feed it every chunk of one direction in order; it calls `onPacket` with each packet's head.
 * Throws on a packet length no SFTP peer sends. A head that lies within one chunk is read where
 * it is; only one cut by a chunk's end is copied (a few bytes, at most the head limit).
 */
export class SftpPacketReader {
  /** The start of a head the previous chunk cut short. */
  private partial: Buffer | undefined;
  /** Bytes of the current packet still to skip after its head was read. */
  private skip = 0;

  constructor(private readonly onPacket: (packet: SftpPacketHead) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      let known = this.partial ?? chunk.subarray(at);
      let wanted = headBytes(known);
      if (this.partial) {
        // Complete the cut head from this chunk, a piece at a time as its size becomes known.
        while (wanted > known.length && at < chunk.length) {
          const take = Math.min(wanted - known.length, chunk.length - at);
          known = Buffer.concat([known, chunk.subarray(at, at + take)]);
          at += take;
          wanted = headBytes(known);
        }
        if (wanted > known.length) {
          this.partial = known;
          return;
        }
      } else if (wanted > known.length) {
        // Cut by the chunk's end: a copy of these few bytes, not a view that holds the chunk.
        this.partial = Buffer.from(known);
        return;
      } else {
        at += wanted;
      }
      this.partial = undefined;
      const length = known.readUInt32BE(0);
      this.onPacket(parseHead(known.subarray(4, wanted), length));
      this.skip = 4 + length - wanted;
    }
  }
}

function parseHead(body: Buffer, length: number): SftpPacketHead {
  const type = body[0]!;
  const cursor = { at: 1 };
  const packet: SftpPacketHead = { type, strings: [], length };
  if (type === SFTP.INIT || type === SFTP.VERSION) return packet;
  packet.id = uint32(body, cursor);
  switch (type) {
    case SFTP.OPEN:
      packet.strings.push(string(body, cursor));
      packet.number = uint32(body, cursor);
      break;
    case SFTP.READ:
      packet.strings.push(string(body, cursor));
      cursor.at += 8; // offset
      packet.number = uint32(body, cursor);
      break;
    case SFTP.WRITE:
      packet.strings.push(string(body, cursor));
      cursor.at += 8;
      packet.dataBytes = uint32(body, cursor);
      break;
    case SFTP.STATUS:
      packet.number = uint32(body, cursor);
      packet.strings.push(string(body, cursor)); // the message
      break;
    case SFTP.DATA:
      packet.dataBytes = uint32(body, cursor);
      break;
    case SFTP.HANDLE:
    case SFTP.CLOSE:
    case SFTP.FSTAT:
    case SFTP.FSETSTAT:
    case SFTP.READDIR:
    case SFTP.LSTAT:
    case SFTP.SETSTAT:
    case SFTP.OPENDIR:
    case SFTP.REMOVE:
    case SFTP.MKDIR:
    case SFTP.RMDIR:
    case SFTP.REALPATH:
    case SFTP.STAT:
    case SFTP.READLINK:
      packet.strings.push(string(body, cursor));
      break;
    case SFTP.RENAME:
    case SFTP.SYMLINK:
    case SFTP.EXTENDED:
      packet.strings.push(string(body, cursor), string(body, cursor));
      if (type === SFTP.EXTENDED) packet.strings.push(string(body, cursor));
      break;
  }
  return packet;
}

/** Reads within the head; past its end (a cut head) it yields 0 and empty strings. */
function uint32(body: Buffer, cursor: { at: number }): number {
  const value = cursor.at + 4 <= body.length ? body.readUInt32BE(cursor.at) : 0;
  cursor.at += 4;
  return value;
}

function string(body: Buffer, cursor: { at: number }): Buffer {
  const length = uint32(body, cursor);
  const start = Math.min(cursor.at, body.length);
  cursor.at += length;
  return body.subarray(start, Math.min(cursor.at, body.length));
}
