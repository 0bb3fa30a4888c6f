/**
 * The audit event catalogue, shared by the server (which emits) and the console (which shows).
 * Code format follows the reference system: T + area + number + severity letter (I info,
 * W warning, E error), reusing the reference's codes where it has one. Families live in
 * `families/`; features add their entries there as they start emitting them.
 */
import type { AuditCatalogueEntry, AuditEntryDraft } from './entry.js';
import { auditSeverity } from './entry.js';
import { databaseEvents } from './families/databases.js';
import { identityEvents } from './families/identity.js';
import { resourceEvents } from './families/resources.js';
import { sessionEvents } from './families/sessions.js';
import { sftpEvents } from './families/sftp.js';

export type { AuditCatalogueEntry, AuditSeverity } from './entry.js';
export { auditSeverity } from './entry.js';

type WithSeverity<T> = {
  [code in keyof T]: T[code] & { severity: AuditCatalogueEntry['severity'] };
};

function withSeverity<T extends Record<string, AuditEntryDraft>>(entries: T): WithSeverity<T> {
  const out: Record<string, AuditCatalogueEntry> = {};
  for (const [code, entry] of Object.entries(entries)) {
    out[code] = { ...entry, severity: auditSeverity(code) };
  }
  return out as WithSeverity<T>;
}

export const auditCatalogue = withSeverity({
  ...identityEvents,
  ...sessionEvents,
  ...sftpEvents,
  ...databaseEvents,
  ...resourceEvents,
});

export type AuditCode = keyof typeof auditCatalogue;

/** Event types whose events are session recordings' end markers (the recordings list). */
export const sessionEndEventTypes = ['session.end', 'windows.desktop.session.end'] as const;

export function describeAuditCode(code: string): AuditCatalogueEntry | undefined {
  return Object.hasOwn(auditCatalogue, code)
    ? (auditCatalogue as Record<string, AuditCatalogueEntry>)[code]
    : undefined;
}
