export type AuditSeverity = 'info' | 'warning' | 'error';

/** What each family file writes for one code; the severity comes from the code itself. */
export interface AuditEntryDraft {
  /** The event type, used for filtering (`include=`). Several codes may share one type. */
  type: string;
  /** A short human title for the Type column (`codeDesc`). */
  desc: string;
  /**
   * Renders an event into a sentence: `{field}` is replaced by the event's field of that name
   * (names may contain dots, like `addr.remote`, because events are flat).
   */
  message: string;
}

export interface AuditCatalogueEntry extends AuditEntryDraft {
  severity: AuditSeverity;
}

/** Spec §4: the code's last letter is the severity (I info, W warning, E error). */
export function auditSeverity(code: string): AuditSeverity {
  if (code.endsWith('E')) return 'error';
  if (code.endsWith('W')) return 'warning';
  return 'info';
}
