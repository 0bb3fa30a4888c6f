import type { CreateSessionResponse } from '@postern/contracts';
import type { WebSocket } from 'ws';
import type { LiveSession } from '../sessions/live-session.js';
import type { ResumeRefusal, SessionResumes } from './session-resumes.js';
import type { WebSocketParty } from './websocket-party.js';

export interface ResumeRequest {
  sid: string;
  key: string;
  received: number;
}

/**
 * Resumes `user`'s session on `socket` (docs/protocol.md §6.1), in this order: the answer (with
 * the input taken so far), the output the client missed, a new key, then the live stream. The
 * party is the same one, moved, so the session, its recording and other parties go on as they
 * were. Returns the session and party, or why not (nothing was sent then).
 */
export function resumeOn(
  socket: WebSocket,
  resumes: SessionResumes,
  user: string,
  request: ResumeRequest,
  remoteAddr: string | undefined,
): { session: LiveSession; party: WebSocketParty } | ResumeRefusal {
  const held = resumes.take(request.sid, user, request.key);
  if ('refused' in held) return held;
  const { session, party } = held;
  if (!party.canResumeFrom(request.received)) {
    return { refused: 'the output it missed is no longer held' };
  }
  const answer: CreateSessionResponse = {
    type: 'create_session_response',
    status: 'ok',
    input_received: party.inputReceived,
  };
  socket.send(JSON.stringify(answer));
  const acknowledged = party.moveTo(socket, request.received) ?? 0;
  if (acknowledged > 0) session.ack(party.id, acknowledged);
  const key = resumes.offer(held);
  if (key) party.resumeKey(key);
  session.resumed(party.id, remoteAddr);
  return { session, party };
}

/**
 * A resumable party's socket closed: without a close frame (1006) the network dropped, and the
 * session waits for a resume; any other close is the party leaving. A party that was resumed
 * on another socket has left this one behind, nothing else.
 */
export function partySocketClosed(
  socket: WebSocket,
  code: number,
  resumes: SessionResumes | undefined,
  session: Pick<LiveSession, 'leave' | 'toTracker'>,
  party: WebSocketParty,
): void {
  if (!party.isOn(socket)) return;
  const sid = session.toTracker().id;
  if (code === 1006 && resumes?.lost(sid, party, 'the connection was lost')) return;
  resumes?.forget(sid, party);
  session.leave(party.id, 'disconnected');
}
