import { describeAuditCode } from './catalogue.js';
import { auditSeverity, type AuditSeverity } from './entry.js';

/** Spec §9: database query text is shown cut at 80 characters. */
export const auditQueryMaxLength = 80;

/** Fields that hold query text, cut wherever a message shows them. */
const queryFields = new Set(['query']);

/** The least an event needs to be shown; search results carry more. */
export interface AuditEventLike {
  event?: unknown;
  code?: unknown;
  time?: unknown;
  user?: unknown;
  [field: string]: unknown;
}

/** One row of the Audit Log. */
export interface FormattedAuditEvent {
  code: string;
  codeDesc: string;
  message: string;
  severity: AuditSeverity;
  type: string;
  user: string;
  time: string;
}

export function truncateQuery(text: string): string {
  return text.length > auditQueryMaxLength ? `${text.slice(0, auditQueryMaxLength)}…` : text;
}

/** Renders an event with its catalogue entry; unknown codes still get a readable row. */
export function formatAuditEvent(event: AuditEventLike): FormattedAuditEvent {
  const code = typeof event.code === 'string' ? event.code : '';
  const type = typeof event.event === 'string' ? event.event : '';
  const entry = describeAuditCode(code);
  return {
    code,
    type,
    codeDesc: entry?.desc ?? 'Unknown',
    message: entry ? renderTemplate(entry.message, event) : `Unknown event: ${type} (${code})`,
    severity: entry?.severity ?? auditSeverity(code),
    user: typeof event.user === 'string' ? event.user : '',
    time: typeof event.time === 'string' ? event.time : '',
  };
}

function renderTemplate(template: string, event: AuditEventLike): string {
  return template.replace(/\{([\w.]+)\}/g, (_placeholder, field: string) => {
    const text = fieldText(event[field]);
    return queryFields.has(field) ? truncateQuery(text) : text;
  });
}

function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(fieldText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
