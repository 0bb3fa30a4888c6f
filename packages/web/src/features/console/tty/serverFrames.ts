import {
  activeSessionJsonSchema,
  decodeEnvelopeBytes,
  fileTransferRequestEventSchema,
  mfaChallengeSchema,
  resumeKeySchema,
  terminalMessageTypes as T,
  type ActiveSessionJson,
  type CreateSessionResponse,
  type FileTransferRequestEvent,
  type MfaChallenge,
  type ResumeKey,
} from '@postern/contracts';
import { endReason, parseJson, text } from './frameData';

/**
 * What the server sends on the terminal socket, read and checked (docs/protocol.md §4), so that
 * TtyClient only acts on it. Pure: no socket, no state.
 */

/** One binary frame: what TtyClient acts on, or undefined for types it does not use. */
export type ServerFrame =
  | { kind: 'output'; body: Uint8Array }
  | { kind: 'session'; session: ActiveSessionJson }
  | { kind: 'audit'; event: Record<string, unknown> }
  /** An `a` event of a moderated file transfer request's life (docs/file-transfer.md). */
  | { kind: 'fileTransfer'; event: FileTransferRequestEvent }
  | { kind: 'error'; message: string }
  | { kind: 'end'; reason: string }
  | { kind: 'resumeKey'; key: ResumeKey }
  | { kind: 'mfaChallenge'; challenge: MfaChallenge };

/** Reads one binary frame; a frame that breaks the envelope reads as an error to show. */
export function readServerFrame(bytes: Uint8Array): ServerFrame | undefined {
  let frame: ReturnType<typeof decodeEnvelopeBytes>;
  try {
    frame = decodeEnvelopeBytes(bytes);
  } catch (err) {
    return { kind: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  const { body } = frame;
  switch (frame.type) {
    case T.raw:
      return { kind: 'output', body };
    case T.sessionData: {
      const json = parseJson(body) as { session?: unknown } | undefined;
      const parsed = activeSessionJsonSchema.safeParse(json?.session);
      return parsed.success ? { kind: 'session', session: parsed.data } : undefined;
    }
    case T.audit: {
      const event = parseJson(body);
      if (!event || typeof event !== 'object') return undefined;
      const transfer = fileTransferRequestEventSchema.safeParse(event);
      return transfer.success
        ? { kind: 'fileTransfer', event: transfer.data }
        : { kind: 'audit', event: event as Record<string, unknown> };
    }
    case T.error:
      return { kind: 'error', message: text(body) };
    case T.sessionEnd:
      return { kind: 'end', reason: endReason(body) };
    case T.resumeKey: {
      const key = resumeKeySchema.safeParse(parseJson(body));
      return key.success ? { kind: 'resumeKey', key: key.data } : undefined;
    }
    case T.mfaChallenge: {
      const challenge = mfaChallengeSchema.safeParse(parseJson(body));
      return challenge.success
        ? { kind: 'mfaChallenge', challenge: challenge.data }
        : { kind: 'error', message: 'the proxy asked for an MFA check this page cannot read' };
    }
    default:
      // Latency, session status and later types: nothing to do yet.
      return undefined;
  }
}

/** The server's text answer to the first frame (a start or a resume). */
export type SessionAnswer =
  | { kind: 'ok'; inputReceived: number }
  | { kind: 'refused'; message: string | undefined }
  | { kind: 'unreadable' }
  /** Another text frame: ignored. */
  | { kind: 'other' };

export function readSessionAnswer(answerText: string): SessionAnswer {
  let answer: Partial<CreateSessionResponse> | undefined;
  try {
    answer = JSON.parse(answerText) as Partial<CreateSessionResponse>;
  } catch {
    return { kind: 'unreadable' };
  }
  if (answer?.type !== 'create_session_response') return { kind: 'other' };
  if (answer.status !== 'ok') return { kind: 'refused', message: answer.message || undefined };
  return { kind: 'ok', inputReceived: answer.input_received ?? 0 };
}
