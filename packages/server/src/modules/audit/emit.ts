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

/**
 * For events emitted while something else goes on (a session's start, a relayed command's end):
 * the caller does not wait, and a store that refuses (a full disk, or closed because the process
 * is stopping) must not become an unhandled rejection, which would end the process. It is
 * reported as a process warning on stderr instead.
 */
export function emitAuditInBackground(
  audit: AuditStore,
  code: AuditCode,
  fields: { user?: string; [field: string]: unknown },
): void {
  const written = emitAudit(audit, code, fields).then(
    () => undefined,
    (error: unknown) => reportUnwritten(code, error),
  );
  trackInBackground(written);
}

/** Counts a background write until it settles, so a stopping server can wait for it. */
export function trackInBackground(written: Promise<void>): void {
  inFlight.add(written);
  void written.finally(() => inFlight.delete(written));
}

/** Background events not yet written: a stopping server waits for them before it closes. */
const inFlight = new Set<Promise<void>>();

/** Settles once every event emitted in the background so far is written (or reported). */
export async function backgroundAuditWritten(): Promise<void> {
  while (inFlight.size > 0) await Promise.all([...inFlight]);
}

/** The warning for an event that could not be written (see emitAuditInBackground). */
export function reportUnwritten(code: string, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.emitWarning(`audit event ${code} was not written: ${reason}`, 'PosternAuditWarning');
}

/** Where a request came from, in the field name the reference's events use. */
export const remoteAddr = (addr: string | undefined) => (addr ? { 'addr.remote': addr } : {});
