import type { AuditCode } from '@postern/contracts';
import { SFTP, SftpPacketReader, type SftpPacketHead } from './sftp-packets.js';

/** One audited SFTP operation, ready to become a TS0xx event. */
export interface SftpAuditRecord {
  /** The event code: TS001I … TS019E (contracts audit/families/sftp.ts). */
  code: AuditCode;
  action: string;
  path: string;
  /** The second path of a rename, symlink or link. */
  target?: string;
  error?: string;
  /** On a close: what was read and written through the handle. */
  bytesRead?: number;
  bytesWritten?: number;
  flags?: string;
}

const SSH_FX_OK = 0;
const SSH_FX_EOF = 1;
const statusNames: Record<number, string> = {
  2: 'no such file',
  3: 'permission denied',
  4: 'failure',
  5: 'bad message',
  8: 'operation unsupported',
};

/** Operation → code number and name; READ and WRITE are counted into the close instead. */
interface Operation {
  ok: AuditCode;
  failed: AuditCode;
  action: string;
  quiet?: boolean;
}

const operations: Record<number, Operation> = {
  [SFTP.OPEN]: { ok: 'TS001I', failed: 'TS001E', action: 'open' },
  [SFTP.CLOSE]: { ok: 'TS002I', failed: 'TS002E', action: 'close' },
  [SFTP.READ]: { ok: 'TS003I', failed: 'TS003E', action: 'read', quiet: true },
  [SFTP.WRITE]: { ok: 'TS004I', failed: 'TS004E', action: 'write', quiet: true },
  [SFTP.LSTAT]: { ok: 'TS005I', failed: 'TS005E', action: 'lstat', quiet: true },
  [SFTP.FSTAT]: { ok: 'TS006I', failed: 'TS006E', action: 'fstat', quiet: true },
  [SFTP.SETSTAT]: { ok: 'TS007I', failed: 'TS007E', action: 'setstat' },
  [SFTP.FSETSTAT]: { ok: 'TS008I', failed: 'TS008E', action: 'fsetstat' },
  [SFTP.OPENDIR]: { ok: 'TS009I', failed: 'TS009E', action: 'opendir' },
  [SFTP.READDIR]: { ok: 'TS010I', failed: 'TS010E', action: 'readdir', quiet: true },
  [SFTP.REMOVE]: { ok: 'TS011I', failed: 'TS011E', action: 'remove' },
  [SFTP.MKDIR]: { ok: 'TS012I', failed: 'TS012E', action: 'mkdir' },
  [SFTP.RMDIR]: { ok: 'TS013I', failed: 'TS013E', action: 'rmdir' },
  [SFTP.REALPATH]: { ok: 'TS014I', failed: 'TS014E', action: 'realpath', quiet: true },
  [SFTP.STAT]: { ok: 'TS015I', failed: 'TS015E', action: 'stat', quiet: true },
  [SFTP.RENAME]: { ok: 'TS016I', failed: 'TS016E', action: 'rename' },
  [SFTP.READLINK]: { ok: 'TS017I', failed: 'TS017E', action: 'readlink', quiet: true },
  [SFTP.SYMLINK]: { ok: 'TS018I', failed: 'TS018E', action: 'symlink' },
};
const extendedOperations: Record<string, Operation> = {
  'posix-rename@openssh.com': { ok: 'TS016I', failed: 'TS016E', action: 'rename' },
  'hardlink@openssh.com': { ok: 'TS019I', failed: 'TS019E', action: 'link' },
};

interface Pending {
  operation: Operation;
  path: string;
  target?: string;
  flags?: string;
  handle?: string;
}

interface OpenHandle {
  path: string;
  read: number;
  written: number;
}

/**
 * Turns the two directions of one SFTP session into audit records: each request is remembered
 * by id until its answer says how it went. Changes (open, close, setstat, remove, mkdir, rmdir,
 * rename, symlink, link, opendir) are recorded when they succeed or fail; reads and writes are
 * counted and reported with the handle's close, and look-ups (stat, realpath, readdir…) only
 * when they fail, so a `get -r` of a big tree does not bury the log. docs/ssh-proxy.md.
 */
export class SftpAuditor {
  readonly fromClient: SftpPacketReader;
  readonly fromServer: SftpPacketReader;
  private readonly pending = new Map<number, Pending>();
  private readonly handles = new Map<string, OpenHandle>();

  constructor(private readonly record: (event: SftpAuditRecord) => void) {
    this.fromClient = new SftpPacketReader((p) => this.request(p));
    this.fromServer = new SftpPacketReader((p) => this.response(p));
  }

  private request(packet: SftpPacketHead): void {
    if (packet.id === undefined) return;
    const [first, second, third] = packet.strings.map((s) => s.toString('utf8'));
    // Handles are opaque bytes (OpenSSH's are 4-byte numbers): keyed as latin1, never as UTF-8.
    const handle = handleOperations.has(packet.type)
      ? packet.strings[0]?.toString('latin1')
      : undefined;
    if (packet.type === SFTP.WRITE) {
      const open = this.handles.get(handle ?? '');
      if (open) open.written += packet.dataBytes ?? 0;
    }
    let operation: Operation | undefined = operations[packet.type];
    let path = first ?? '';
    let target = [SFTP.RENAME, SFTP.SYMLINK].includes(packet.type as 18) ? second : undefined;
    if (packet.type === SFTP.EXTENDED) {
      operation = extendedOperations[first ?? ''];
      path = second ?? '';
      target = third;
    }
    if (!operation) return;
    if (handle !== undefined) path = this.handles.get(handle)?.path ?? '';
    this.pending.set(packet.id, {
      operation,
      path,
      target,
      handle,
      flags: packet.type === SFTP.OPEN ? openFlags(packet.number ?? 0) : undefined,
    });
  }

  private response(packet: SftpPacketHead): void {
    if (packet.id === undefined) return;
    const request = this.pending.get(packet.id);
    if (!request) return;
    this.pending.delete(packet.id);
    const { operation } = request;
    if (packet.type === SFTP.DATA && operation.action === 'read') {
      const open = this.handles.get(request.handle ?? '');
      if (open) open.read += packet.dataBytes ?? 0;
      return;
    }
    if (packet.type === SFTP.HANDLE) {
      this.handles.set(packet.strings[0]!.toString('latin1'), {
        path: request.path,
        read: 0,
        written: 0,
      });
    }
    const status = packet.type === SFTP.STATUS ? (packet.number ?? SSH_FX_OK) : SSH_FX_OK;
    // End of file or of a listing is how reads and readdirs finish, not a failure.
    const failed = status !== SSH_FX_OK && status !== SSH_FX_EOF;
    if (!failed && operation.quiet) return;
    const event: SftpAuditRecord = {
      code: failed ? operation.failed : operation.ok,
      action: operation.action,
      path: request.path,
      ...(request.target !== undefined ? { target: request.target } : {}),
      ...(request.flags ? { flags: request.flags } : {}),
    };
    if (failed) {
      const message = packet.strings[0]?.toString('utf8');
      event.error = message || statusNames[status] || `status ${status}`;
    }
    if (operation.action === 'close' && request.handle !== undefined) {
      const open = this.handles.get(request.handle);
      this.handles.delete(request.handle);
      if (open) Object.assign(event, { bytesRead: open.read, bytesWritten: open.written });
    }
    this.record(event);
  }
}

/** Requests naming a handle rather than a path (the handle's path is reported). */
const handleOperations = new Set<number>([
  SFTP.CLOSE,
  SFTP.READ,
  SFTP.WRITE,
  SFTP.FSTAT,
  SFTP.FSETSTAT,
  SFTP.READDIR,
]);

function openFlags(pflags: number): string {
  const names: [number, string][] = [
    [0x01, 'read'],
    [0x02, 'write'],
    [0x04, 'append'],
    [0x08, 'create'],
    [0x10, 'truncate'],
    [0x20, 'exclusive'],
  ];
  return names
    .filter(([bit]) => pflags & bit)
    .map(([, name]) => name)
    .join(',');
}
