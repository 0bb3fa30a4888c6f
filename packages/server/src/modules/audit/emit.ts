import { auditCatalogue, type AuditCode } from '@postern/contracts';
import type { AuditEvent, AuditStore } from './audit.types.js';

/**
 * Emits an event under a catalogue code, so the event type always matches the code. Fields must
 * never hold secrets (passwords, tokens, TOTP secrets): callers pass names, addresses and kinds.
 */
export function emitAudit(
  audit: AuditStore,
  code: AuditCode,
  fields: { user?: string; [field: string]: unknown },
): Promise<AuditEvent> {
  return audit.emit({ ...fields, event: auditCatalogue[code].type, code });
}

/** Where a request came from, in the field name the reference's events use. */
export const remoteAddr = (addr: string | undefined) => (addr ? { 'addr.remote': addr } : {});
