import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { remoteFilenameSchema } from '@postern/contracts';
import type { Client } from 'ssh2';
import { accessDenied, ApiError, badParameter } from '../../../errors.js';
import type { Identity } from '../../../http/request-identity.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { ApprovedTransfers } from '../../../modules/sessions/approved-transfers.js';
import { Moderation } from '../../../modules/sessions/moderation.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import { requesterOf, type NodeAccess } from '../terminal/node-access.js';
import type { DialableNode } from '../terminal/node-dialer.js';
import { remoteError, RemoteFiles } from './remote-files.js';
import { TransferAudit } from './transfer-audit.js';
import { byteCounter, closed, describe, tooLarge } from './transfer-streams.js';

export interface FileTransferDeps {
  access: NodeAccess;
  audit: AuditStore;
  /** file_transfer.max_bytes: the largest file moved either way. */
  maxBytes: number;
  log: (error: unknown, message: string) => void;
  /** The session hub's access re-checks: a transfer whose access is taken away is cut off. */
  guards?: Pick<SessionHub, 'guard'>;
  /** The transfers moderated sessions approved (absent: a moderated user moves no files). */
  moderatedTransfers?: {
    approvals: Pick<ApprovedTransfers, 'take'>;
    /** Whether the session is still live on some proxy of the cluster. */
    isLive(sessionId: string): boolean;
  };
}

/** One transfer's who and where, from the route. */
export interface TransferRequest {
  identity: Identity;
  serverId: string;
  login: string;
  location: string;
  filename?: string;
  remoteAddr: string;
  /** A moderated user's transfer: the session and the request its moderators approved. */
  moderatedSessionId?: string;
  fileTransferRequestId?: string;
}

export interface Download {
  /** The file's bytes; the transfer is audited when it ends, completed or not. */
  stream: Readable;
  size: number;
  /** The name the browser saves it under. */
  filename: string;
}

/** The file part of a multipart upload, as the route hands it over. */
export interface UploadPart {
  stream: Readable;
  /** The name the browser sent with the part. */
  filename: string;
}

/**
 * A download reads one request at a time, so over a long round trip the read size sets the pace:
 * ask for 256 KiB (OpenSSH's sftp-server allows that much, limits@openssh.com; ssh2 splits a
 * read beyond what the server allows).
 */
const transferChunkBytes = 256 * 1024;

/** What `ssh_file_copy: false` answers (the SSH proxy says the same to scp and sftp). */
export const fileCopyRefusal = 'file copying is not allowed by your roles (ssh_file_copy: false)';

/** Room for the multipart framing around the file (boundaries, part headers). */
const multipartSlack = 64 * 1024;

/**
 * Moves one file between the browser and a node over SFTP, on a connection made exactly as the
 * terminal makes one (NodeAccess: RBAC, locks, a fresh certificate, host key pinning). Nothing is
 * buffered whole: bytes stream through with backpressure. An upload goes to a temporary name
 * beside the target and is renamed over it only when complete, so a failed or refused upload
 * never leaves a half-written file. Every transfer, and every refusal, is audited.
 */
export class FileTransferService {
  constructor(private readonly deps: FileTransferDeps) {}

  async download(request: TransferRequest): Promise<Download> {
    const audit = this.audit(request, 'download');
    let files: RemoteFiles | undefined;
    let client: Client | undefined;
    let remotePath = request.location;
    let guard: TransferGuard | undefined;
    try {
      const node = this.checked(request, audit);
      await this.approved(request, node, true);
      ({ client, files, guard } = await this.connect(request, node));
      remotePath = files.resolve(request.location);
      audit.path = remotePath;
      const stats = await files.stat(remotePath);
      if (!stats) throw remoteError({ code: 2 }, remotePath);
      if (!stats.isFile()) throw badParameter(`${remotePath} is not a regular file`);
      if (stats.size > this.deps.maxBytes) throw tooLarge(this.deps.maxBytes);
      const counter = byteCounter(Infinity);
      // Exactly the size announced in content-length: files like those in /proc say 0 and then
      // read more, which would break the response.
      const source =
        stats.size > 0
          ? files.sftp.createReadStream(remotePath, {
              start: 0,
              end: stats.size - 1,
              highWaterMark: transferChunkBytes,
            })
          : Readable.from([]);
      const opened = files;
      const connection = client;
      const guarded = guard;
      // The outcome is the response's: complete once the reader took the last byte, cancelled
      // if the browser went away first (Fastify then destroys the stream, and the pipeline the
      // SFTP read).
      pipeline(source, counter, { signal: guard.aborted.signal }).catch(() => undefined);
      finished(counter)
        .then(
          () => audit.succeeded(counter.bytes),
          (error: unknown) =>
            audit.failed(
              guarded.revoked ?? describe(error, 'the download was cancelled'),
              counter.bytes,
            ),
        )
        .finally(() => {
          guarded.stop();
          opened.end();
          connection.end();
        });
      return {
        stream: counter,
        size: stats.size,
        filename: request.filename ?? path.posix.basename(remotePath),
      };
    } catch (error) {
      guard?.stop();
      files?.end();
      client?.end();
      throw await audit.refused(guard?.revoked ? accessDenied(guard.revoked) : error, remotePath);
    }
  }

  /**
   * `declaredBytes` is the request's content-length, when sent: a body far over the limit is
   * refused before the node is dialled or a byte is read.
   */
  async upload(
    request: TransferRequest,
    declaredBytes: number | undefined,
    nextPart: () => Promise<UploadPart | undefined>,
  ) {
    const audit = this.audit(request, 'upload');
    let files: RemoteFiles | undefined;
    let client: Client | undefined;
    let temporary: string | undefined;
    let remotePath = request.location;
    let guard: TransferGuard | undefined;
    try {
      const verdict = this.checked(request, audit);
      if (declaredBytes !== undefined && declaredBytes > this.deps.maxBytes + multipartSlack) {
        throw tooLarge(this.deps.maxBytes);
      }
      await this.approved(request, verdict, false);
      ({ client, files, guard } = await this.connect(request, verdict));
      const part = await nextPart();
      if (!part) throw badParameter('the form holds no file');
      // A body cut short or malformed is the caller's fault (400), not the node's. It may fail
      // while the target is looked up, before the pipeline below listens.
      let bodyFailed: unknown;
      part.stream.once('error', (error) => (bodyFailed = error));
      const target = await this.uploadTarget(files, request, part.filename);
      remotePath = target.path;
      audit.path = remotePath;
      // A short fixed name: the target's own name may already be as long as names may be.
      const suffix = randomBytes(6).toString('hex');
      temporary = path.posix.join(
        path.posix.dirname(target.path),
        `.postern-upload-${suffix}.part`,
      );
      const counter = byteCounter(this.deps.maxBytes);
      // 'wx': never write through something that appeared under the temporary name.
      // Chunks that queue while a write is in flight go out together as parallel SFTP writes
      // (ssh2's _writev), so throughput is not one round trip per chunk.
      const sink = files.sftp.createWriteStream(temporary, {
        flags: 'wx',
        highWaterMark: transferChunkBytes * 4,
      });
      await pipeline(part.stream, counter, sink, { signal: guard.aborted.signal }).catch(
        (error: unknown) => {
          if (error !== bodyFailed && error !== part.stream.errored) throw error;
          throw badParameter(
            `the upload did not complete: ${describe(error, 'the body ended early')}`,
          );
        },
      );
      await closed(sink);
      // An overwrite keeps the file's permissions, as `cp` onto an existing file does.
      if (target.existingMode !== undefined) await files.chmod(temporary, target.existingMode);
      await files.replace(temporary, target.path);
      temporary = undefined;
      await audit.succeeded(counter.bytes);
      return { path: target.path, bytes: counter.bytes };
    } catch (error) {
      if (temporary && files) {
        await files
          .remove(temporary)
          .catch((cleanup: unknown) =>
            this.deps.log(cleanup, `could not remove the partial upload ${temporary}`),
          );
      }
      throw await audit.refused(guard?.revoked ? accessDenied(guard.revoked) : error, remotePath);
    } finally {
      guard?.stop();
      files?.end();
      client?.end();
    }
  }

  /** Where an upload lands: location itself, or location/filename when it is a directory. */
  private async uploadTarget(files: RemoteFiles, request: TransferRequest, partName: string) {
    const location = files.resolve(request.location);
    const stats = await files.stat(location);
    let target = location;
    if (stats?.isDirectory()) {
      const name = remoteFilenameSchema.safeParse(request.filename ?? partName);
      if (!name.success) throw badParameter(`filename: ${name.error.issues[0]?.message}`);
      target = path.posix.join(location, name.data);
    }
    const existing = target === location ? stats : await files.stat(target);
    if (existing && !existing.isFile()) throw badParameter(`${target} is not a regular file`);
    return { path: target, existingMode: existing?.mode };
  }

  /** The node, when the login may be used on it now (the terminal's rules); else throws. */
  private checked(request: TransferRequest, audit: TransferAudit): DialableNode {
    const verdict = this.deps.access.check(
      requesterOf(request.identity),
      request.serverId,
      request.login,
    );
    if (verdict.node) audit.node = verdict.node;
    if (!verdict.ok) throw verdict.error;
    // ssh_file_copy: false (strictest of the roles) refuses the console's transfers too.
    if (!request.identity.roleSet.options().sshFileCopy) throw accessDenied(fileCopyRefusal);
    return verdict.node;
  }

  /**
   * A moderated user's files move only as their session's moderators approved
   * (file-transfer-requests.ts): the approval for these ids, made for this user, server, login,
   * direction and path, in a session still live, is taken, so it moves one file once.
   */
  private async approved(request: TransferRequest, node: DialableNode, download: boolean) {
    const moderation = Moderation.of(requesterOf(request.identity), 'ssh');
    if (!moderation.required) return;
    const refusal = (why: string) =>
      accessDenied(
        `file transfer is not allowed: your sessions need ${moderation.describe()}; ${why}`,
      );
    const { moderatedSessionId: sid, fileTransferRequestId: id } = request;
    const moderated = this.deps.moderatedTransfers;
    if (!sid || !id || !moderated) {
      throw refusal(
        'ask for it in your moderated session’s terminal, for its moderators to approve',
      );
    }
    if (!moderated.isLive(sid)) throw refusal('the session it was approved in has ended');
    const taken = await moderated.approvals.take(
      sid,
      id,
      (approval) =>
        approval.user === request.identity.user &&
        approval.nodeId === node.id &&
        approval.login === request.login &&
        approval.download === download &&
        approval.location === request.location &&
        (approval.filename === undefined || approval.filename === request.filename),
    );
    if (!taken) {
      throw refusal('no approval of its moderators matches this transfer (each allows one, once)');
    }
  }

  private async connect(request: TransferRequest, node: DialableNode) {
    const requester = requesterOf(request.identity);
    const { client } = await this.deps.access.connect(requester, node, request.login);
    // Access taken away mid-transfer (a lock, a role edit, a changed password) cuts the
    // connection. A transfer is no session of the hub's, so its locks are judged here.
    const guard: TransferGuard = { stop: () => undefined, aborted: new AbortController() };
    if (this.deps.guards) {
      const { access } = this.deps;
      guard.stop = this.deps.guards.guard({
        recheck: () =>
          access.lockedReason(requester, node, request.login) ??
          access.recheck(requester, node, request.login),
        revoke: (reason) => {
          guard.revoked = reason;
          guard.stop();
          // Stops the pipeline (even one waiting on the browser); the transfer then cleans up
          // on the node (a partial upload is removed) and closes the connection itself.
          guard.aborted.abort();
        },
      });
    }
    try {
      return { client, files: await RemoteFiles.open(client), guard };
    } catch (error) {
      guard.stop();
      client.end();
      throw new ApiError(
        'connection_problem',
        `${node.hostname} offers no SFTP: ${describe(error, 'unknown error')}`,
      );
    }
  }

  private audit(request: TransferRequest, action: 'upload' | 'download'): TransferAudit {
    return new TransferAudit({
      audit: this.deps.audit,
      action,
      user: request.identity.user,
      login: request.login,
      serverId: request.serverId,
      remoteAddr: request.remoteAddr,
      location: request.location,
      log: this.deps.log,
    });
  }
}

/** A transfer under the hub's re-checks: `revoked` says why it was cut off, if it was. */
interface TransferGuard {
  stop: () => void;
  /** Aborted on revocation: the transfer's pipeline stops at once. */
  aborted: AbortController;
  revoked?: string;
}
