import { sessionEndReasons } from '@postern/contracts';
import { emitAuditInBackground } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import type { ChannelExit } from './session-channel.js';

/** A slow observer may hold the session paused this long before it is dropped. */
export const stalledPartyLimitMs = 10_000;

/** Before the channel reports how the program ended. */
export const closedReason = 'session closed';

/** How the program ended, as the session keeps it: a signal counts as code -1. */
export interface ExitStatus {
  code: number;
  signal: string;
}

/** The status to relay (an SSH client gets it) and the reason parties are told. */
export function exitOutcome(exit: ChannelExit): { status: ExitStatus; reason: string } {
  const { code, signal } = exit;
  return {
    status: { code: code ?? (signal ? -1 : 0), signal: signal ?? '' },
    reason: signal ? sessionEndReasons.signalled(signal) : sessionEndReasons.exited(code ?? 0),
  };
}

/** The time limits every kind of session keeps: max_session_ttl and client_idle_timeout. */
export function limitReason(
  now: number,
  limits: { expiresAt: number; idleTimeoutMs: number },
  lastInput: number,
): string | undefined {
  if (now >= limits.expiresAt) return 'session expired (max_session_ttl)';
  const idle = limits.idleTimeoutMs;
  if (idle > 0 && now - lastInput >= idle) return `idle for longer than client_idle_timeout`;
  return undefined;
}

/** A moderator ends a session with `t` (reference §2.3), typed in a browser or an SSH client. */
export const isTerminateKey = (data: string | Uint8Array) =>
  typeof data === 'string' ? data === 't' : data.length === 1 && data[0] === 0x74;

export interface SessionEnd {
  fields: Record<string, unknown>;
  owner: string;
  command: string;
  interactive: boolean;
  reason: string;
  participants: string[];
  created: number;
  stoppedAt: number;
  recorded: boolean;
  recordingError: string;
  /** How the program ended, when the channel said. */
  exit: { status: ExitStatus; reason: string } | undefined;
}

/** The end event (T2004I), after a command session's outcome (T3002I/E) when it ran one. */
export function auditSessionEnd(audit: AuditStore, end: SessionEnd): void {
  if (end.command) auditExec(audit, end);
  emitAuditInBackground(audit, 'T2004I', {
    ...end.fields,
    user: end.owner,
    reason: end.reason,
    participants: end.participants,
    interactive: end.interactive,
    session_start: new Date(end.created).toISOString(),
    session_stop: new Date(end.stoppedAt).toISOString(),
    session_recording: end.recorded ? 'on' : 'off',
    ...(end.recordingError ? { session_recording_error: end.recordingError } : {}),
  });
}

/** A command session's outcome: T3002I when it exited 0, T3002E otherwise (reference codes). */
function auditExec(audit: AuditStore, end: SessionEnd): void {
  const status = end.exit?.status;
  const ok = status !== undefined && status.code === 0 && !status.signal;
  emitAuditInBackground(audit, ok ? 'T3002I' : 'T3002E', {
    ...end.fields,
    user: end.owner,
    command: end.command,
    exitCode: String(status?.code ?? ''),
    ...(ok ? {} : { exitError: end.exit ? end.exit.reason : end.reason }),
  });
}
