import type { AuditEventJson } from '@postern/contracts';

/** Event types of what happens in a terminal session, which a recording shows. */
const sessionEventTypes = new Set([
  'session.start',
  'session.end',
  'session.join',
  'session.leave',
  'session.connection_lost',
  'session.resumed',
  'resize',
  'session.recording.access',
]);

/**
 * The session whose recording an event links to, or undefined. Events that say the session was
 * a command without a terminal, or was not recorded, have nothing to play.
 */
export function recordedSessionOf(event: AuditEventJson): string | undefined {
  if (!sessionEventTypes.has(event.event)) return undefined;
  if (typeof event.sid !== 'string' || event.sid === '') return undefined;
  if (event.interactive === false || event.session_recording === 'off') return undefined;
  if (event.proto !== undefined && event.proto !== 'ssh') return undefined;
  return event.sid;
}
