import { randomUUID } from 'node:crypto';
import {
  encodeEnvelope,
  terminalMessageTypes as T,
  type ActiveSessionJson,
  type ParticipantMode,
} from '@postern/contracts';
import type { WebSocket } from 'ws';
import type { Party } from '../sessions/party.js';

/** A browser tab in a session: each call becomes one envelope frame on its socket. */
export class WebSocketParty implements Party {
  readonly id = randomUUID();
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    readonly user: string,
    readonly roles: readonly string[],
    readonly mode: ParticipantMode,
  ) {}

  output(chunk: Uint8Array): void {
    this.send(encodeEnvelope(T.raw, chunk));
  }

  event(event: Record<string, unknown>): void {
    this.send(encodeEnvelope(T.audit, JSON.stringify(event)));
  }

  sessionData(session: ActiveSessionJson): void {
    this.send(encodeEnvelope(T.sessionData, JSON.stringify({ session })));
  }

  error(message: string): void {
    this.send(encodeEnvelope(T.error, message));
  }

  end(reason: string): void {
    if (this.closed) return;
    this.send(encodeEnvelope(T.sessionEnd, JSON.stringify({ reason })));
    this.closed = true;
    this.socket.close(1000, truncateReason(reason));
  }

  private send(frame: Uint8Array): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(frame);
  }
}

/** A close reason must fit in 123 bytes. */
function truncateReason(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  return bytes.length <= 120
    ? reason
    : bytes
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD$/, '');
}
