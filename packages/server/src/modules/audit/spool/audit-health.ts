import { ApiError } from '../../../errors.js';

/**
 * Whether the audit log can take a new session's events. Every session start (terminal, SSH
 * proxy, file transfer: all through NodeAccess) asks here first, so no session runs unaudited.
 */
export interface AuditHealth {
  /** Throws AuditUnavailableError when new sessions must be refused. */
  assertCanAudit(): void;
}

export const alwaysAuditable: AuditHealth = { assertCanAudit() {} };

/** The reason a refused session shows: readable, and no internal detail. */
export class AuditUnavailableError extends ApiError {
  constructor() {
    super(
      'audit_unavailable',
      'audit storage is unavailable; new sessions are refused until it recovers',
    );
    this.name = 'AuditUnavailableError';
  }
}
