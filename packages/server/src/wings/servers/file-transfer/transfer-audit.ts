import type { AuditCode } from '@postern/contracts';
import { ApiError } from '../../../errors.js';
import { emitAudit } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { DialableNode } from '../terminal/node-dialer.js';
import { remoteError } from './remote-files.js';

const codes = {
  download: { ok: 'T3004I', failed: 'T3004E' },
  upload: { ok: 'T3005I', failed: 'T3005E' },
} as const satisfies Record<string, { ok: AuditCode; failed: AuditCode }>;

export interface TransferAuditContext {
  audit: AuditStore;
  action: keyof typeof codes;
  user: string;
  login: string;
  serverId: string;
  remoteAddr: string;
  /** The path as asked for, until the transfer knows the resolved one. */
  location: string;
  log: (error: unknown, message: string) => void;
}

/**
 * The scp event of one transfer (spec §8), filled in as the transfer learns more: the server
 * once it is found, the absolute path once it is resolved. An audit store failure is logged and
 * never fails the transfer.
 */
export class TransferAudit {
  node: DialableNode | undefined;
  path: string;

  constructor(private readonly ctx: TransferAuditContext) {
    this.path = ctx.location;
  }

  async succeeded(bytes: number): Promise<void> {
    await this.emit(codes[this.ctx.action].ok, { bytes });
  }

  async failed(message: string, bytes: number): Promise<void> {
    // `exitError` is what the catalogue's message shows; `error` is the field readers query.
    await this.emit(codes[this.ctx.action].failed, { bytes, error: message, exitError: message });
  }

  /** Audits a refusal or failure and returns the error to answer with. */
  async refused(error: unknown, remotePath: string): Promise<ApiError> {
    const apiError = asApiError(error, remotePath);
    await this.failed(apiError.message, 0);
    return apiError;
  }

  private async emit(code: AuditCode, extra: object): Promise<void> {
    const { ctx, node } = this;
    await emitAudit(ctx.audit, code, {
      user: ctx.user,
      login: ctx.login,
      server_id: node?.id ?? ctx.serverId,
      ...(node ? { server_hostname: node.hostname } : {}),
      path: this.path,
      action: ctx.action,
      'addr.remote': ctx.remoteAddr,
      ...extra,
    }).catch((error: unknown) => ctx.log(error, 'could not audit a file transfer'));
  }
}

/** What the caller reads: our own errors, the multipart parser's 4xx, or what the node said. */
function asApiError(error: unknown, remotePath: string): ApiError {
  if (error instanceof ApiError) return error;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = error instanceof Error ? error.message : 'bad request';
    return new ApiError(status === 413 ? 'too_large' : 'bad_parameter', message);
  }
  return remoteError(error, remotePath);
}
