import {
  decodeEnvelopeBytes,
  encodeEnvelope,
  resizePayloadSchema,
  sessionMfaResponseSchema,
  terminalAuthFrameSchema,
  terminalMessageTypes as T,
  terminalResumeFrameSchema,
  terminalSizeSchema,
  type CreateSessionResponse,
  type ParticipantMode,
} from '@postern/contracts';
import type { RawData, WebSocket } from 'ws';
import type { z } from 'zod';
import { accessDenied, ApiError, badParameter } from '../../errors.js';
import { sessionMfaTimeoutMs, type SessionMfa } from '../../identity/mfa/session-mfa.js';
import type { Identity } from '../../http/request-identity.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { Party } from '../sessions/party.js';
import type { JoinedSession } from '../sessions/remote-session.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';
import { WebSocketParty } from './websocket-party.js';
import { toBytes } from '../../websocket/frames.js';
import { keepAlive } from '../../websocket/keep-alive.js';
import type { SessionResumes } from './session-resumes.js';

/**
 * What a terminal socket serves: the sessions of one protocol (a shell on a server, a SQL
 * console on a database). `request` reads the socket's `params`; with a `sid` in them the caller
 * joins a live session instead of starting one.
 */
export interface TerminalSessions<Request extends { sid?: string; mode?: ParticipantMode }> {
  request: z.ZodType<Request>;
  start(identity: Identity, request: Request): Promise<LiveSession>;
  joinable(
    identity: Identity,
    sid: string,
    mode: ParticipantMode | undefined,
  ): { session: JoinedSession; mode: ParticipantMode };
  /** Keeps a joined party under the access re-checks; returns the stop. */
  guardParty(identity: Identity, session: JoinedSession, party: Party): () => void;
}

export interface TerminalSocketOptions<Request extends { sid?: string; mode?: ParticipantMode }> {
  sessions: TerminalSessions<Request>;
  /** Proves the bearer of the first frame together with the upgrade request's cookie. */
  authenticate: (bearer: string) => Promise<Identity | null>;
  params: string | undefined;
  pingIntervalMs: number;
  authTimeoutMs?: number;
  /**
   * What a per-session MFA check of this caller is bound to, when their roles ask for one
   * (require_session_mfa); undefined when they do not.
   */
  mfaSubject?: (identity: Identity) => string | undefined;
  /** Per-session MFA, asked over `n` frames (absent: a session that needs it is refused). */
  mfa?: Pick<SessionMfa, 'challenge' | 'verify'>;
  /** The upgrade's Origin, which a key's answer must name. */
  origin?: string | undefined;
  mfaTimeoutMs?: number;
  /** Sessions started here that their owner may resume after a dropped connection. */
  resumes?: SessionResumes;
  /** The client's address, for the audit of a resume. */
  remoteAddr?: string;
  log: (error: unknown, message: string) => void;
}

const decoder = new TextDecoder();
/** Input a client may send before its session is up (a paste while dialling). */
const earlyInputLimit = 256 * 1024;

/**
 * One terminal WebSocket (docs/protocol.md): the first frame must be the bearer, then envelope
 * frames flow between the browser and the session hub. Nothing reaches a session before the
 * caller is proven; errors after that are `e` frames the terminal prints.
 */
export function serveTerminalSocket<Request extends { sid?: string; mode?: ParticipantMode }>(
  socket: WebSocket,
  options: TerminalSocketOptions<Request>,
): void {
  let stage: 'auth' | 'starting' | 'live' | 'closed' = 'auth';
  let session: JoinedSession | undefined;
  let party: WebSocketParty | undefined;
  let stopGuard: (() => void) | undefined;
  // Keystrokes typed while the node is being dialled are kept and replayed, not lost.
  const early: Uint8Array[] = [];
  let earlyBytes = 0;
  // The answer to a per-session MFA challenge, awaited before the session starts.
  let mfaAnswer: { resolve(text: string): void; reject(error: Error): void } | undefined;
  const fail = (message: string, code = 1008) => {
    if (stage === 'auth')
      answer(socket, { type: 'create_session_response', status: 'error', message });
    else socket.send(encodeEnvelope(T.error, message));
    stage = 'closed';
    socket.close(code, message.slice(0, 120));
  };

  const authTimer = setTimeout(
    () => fail('authentication timed out'),
    options.authTimeoutMs ?? 10_000,
  );
  const alive = keepAlive(socket, options.pingIntervalMs);

  socket.on('message', (data: RawData, isBinary: boolean) => {
    if (stage === 'auth') {
      clearTimeout(authTimer);
      stage = 'starting';
      void begin(isBinary ? undefined : toText(data)).catch((error: unknown) => {
        if (!(error instanceof ApiError)) options.log(error, 'terminal session failed to start');
        fail(error instanceof ApiError ? error.message : 'internal error', 1000);
      });
      return;
    }
    if (!isBinary) return;
    if (stage === 'starting') {
      const frame = toBytes(data);
      if (mfaAnswer && isMfaFrame(frame)) return mfaAnswer.resolve(mfaText(frame));
      earlyBytes += frame.length;
      if (earlyBytes > earlyInputLimit) return fail('too much input before the session started');
      early.push(frame);
      return;
    }
    if (stage !== 'live' || !session || !party) return;
    onFrame(session, party, toBytes(data));
  });

  socket.on('close', (code: number) => {
    clearTimeout(authTimer);
    alive.stop();
    stage = 'closed';
    mfaAnswer?.reject(new ApiError('connection_problem', 'the client disconnected'));
    stopGuard?.();
    // A party that was resumed on another socket has left this one behind, nothing else.
    if (!session || !party || !party.isOn(socket)) return;
    // No close frame (1006): the network dropped, not the user; the owner may come back.
    if (code === 1006 && options.resumes?.lost(session.toTracker().id, 'the connection was lost')) {
      return;
    }
    options.resumes?.forget(session.toTracker().id);
    session.leave(party.id, 'disconnected');
  });
  closeOnProtocolError(socket);

  async function begin(firstFrame: string | undefined): Promise<void> {
    const auth = terminalAuthFrameSchema.safeParse(safeJson(firstFrame));
    const identity = auth.success ? await options.authenticate(auth.data.token) : null;
    if (!identity) {
      stage = 'auth';
      return fail('not authenticated');
    }
    const resume = terminalResumeFrameSchema.safeParse(safeJson(firstFrame));
    if (resume.success) return resumeSession(identity, resume.data.resume);
    const request = options.sessions.request.safeParse(safeJson(options.params));
    if (!request.success) {
      stage = 'auth';
      return fail(`bad terminal parameters: ${request.error.issues[0]?.message ?? 'invalid'}`);
    }
    answer(socket, { type: 'create_session_response', status: 'ok' });
    // Before a session starts or is joined: nothing of it is shown to an unchecked caller.
    const subject = options.mfaSubject?.(identity);
    if (subject !== undefined) {
      await passMfa(identity.user, subject);
      if (socket.readyState !== socket.OPEN) return;
    }
    const caller: Identity = subject === undefined ? identity : { ...identity, mfaVerified: true };
    const { sid, mode } = request.data;
    if (sid) {
      const joined = options.sessions.joinable(caller, sid, mode);
      session = joined.session;
      party = new WebSocketParty(socket, caller.user, caller.roles, joined.mode);
      stopGuard = options.sessions.guardParty(caller, session, party);
    } else {
      const started = await options.sessions.start(caller, request.data);
      session = started;
      party = new WebSocketParty(socket, caller.user, caller.roles, 'peer');
      // The browser left while we dialled: nobody owns the new session.
      if (stage === 'closed') {
        return started.terminate('the client disconnected before the session started');
      }
      const key = options.resumes?.offer({ session: started, party, user: caller.user });
      if (key) party.resumeKey(key);
    }
    if (stage === 'closed') return;
    stage = 'live';
    await session.join(party);
    for (const frame of early.splice(0)) onFrame(session, party, frame);
  }

  /**
   * The owner's client comes back after its connection dropped (docs/protocol.md §6.1): the
   * same user, with the session's last key, gets what it missed and then the live stream; its
   * party is the same one, so the session, its recording and the other parties go on as if
   * nothing happened. The key is single-use: a new one follows.
   */
  function resumeSession(
    identity: Identity,
    resume: { sid: string; key: string; received: number },
  ): void {
    const held = options.resumes?.take(resume.sid, identity.user, resume.key) ?? {
      refused: 'this socket resumes no sessions',
    };
    const refusal =
      'refused' in held
        ? held
        : held.party.canResumeFrom(resume.received)
          ? undefined
          : { refused: 'the output it missed is no longer held' };
    if (refusal || 'refused' in held || !options.resumes) {
      const message = `the session cannot be resumed: ${refusal?.refused ?? 'unknown'}`;
      if (!refusal?.elsewhere) {
        stage = 'auth';
        return fail(message);
      }
      answer(socket, {
        type: 'create_session_response',
        status: 'error',
        message,
        code: 'resume_elsewhere',
      });
      stage = 'closed';
      return socket.close(1000, 'resume elsewhere');
    }
    answer(socket, {
      type: 'create_session_response',
      status: 'ok',
      input_received: held.party.inputReceived,
    });
    session = held.session;
    party = held.party;
    const acknowledged = party.moveTo(socket, resume.received) ?? 0;
    if (acknowledged > 0) held.session.ack(party.id, acknowledged);
    const key = options.resumes.offer(held);
    if (key) party.resumeKey(key);
    held.session.resumed(party.id, options.remoteAddr);
    stage = 'live';
    for (const frame of early.splice(0)) onFrame(session, party, frame);
  }

  /** Sends the challenge on an `n` frame and checks the answer that comes back on one. */
  async function passMfa(user: string, subject: string): Promise<void> {
    const mfa = options.mfa;
    if (!mfa) throw accessDenied('this session needs a per-session MFA check, not offered here');
    const challenge = await mfa.challenge(user, subject);
    socket.send(encodeEnvelope(T.mfaChallenge, JSON.stringify(challenge)));
    const text = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(accessDenied('the MFA check for this session was not answered in time')),
        options.mfaTimeoutMs ?? sessionMfaTimeoutMs,
      );
      mfaAnswer = {
        resolve: (answered) => (clearTimeout(timer), resolve(answered)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
    }).finally(() => (mfaAnswer = undefined));
    const response = sessionMfaResponseSchema.safeParse(safeJson(text));
    if (!response.success) throw badParameter('the MFA answer is not a key assertion or a code');
    await mfa.verify(user, subject, response.data, options.origin);
  }
}

function isMfaFrame(frame: Uint8Array): boolean {
  try {
    return decodeEnvelopeBytes(frame).type === T.mfaChallenge;
  } catch {
    return false;
  }
}

const mfaText = (frame: Uint8Array) => decoder.decode(decodeEnvelopeBytes(frame).body);

/** One envelope frame from a client (or a proxy relaying one) to its party in the session. */
export function onFrame(session: JoinedSession, party: WebSocketParty, frame: Uint8Array): void {
  let decoded;
  try {
    decoded = decodeEnvelopeBytes(frame);
  } catch {
    return party.error('malformed frame ignored');
  }
  const { type, body } = decoded;
  switch (type) {
    case T.raw:
      party.tookInput(body.length);
      return session.input(party.id, decoder.decode(body));
    case T.resize: {
      const resize = resizePayloadSchema.safeParse(safeJson(decoder.decode(body)));
      const size = resize.success
        ? terminalSizeSchema.safeParse({ w: resize.data.width, h: resize.data.height })
        : undefined;
      if (!size?.success) return party.error('resize refused: sizes must be between 1 and 4095');
      return session.resize(party.id, size.data.w, size.data.h);
    }
    case T.outputAck: {
      const bytes = Number(decoder.decode(body));
      if (!Number.isSafeInteger(bytes) || bytes <= 0) return;
      party.acknowledged(bytes);
      return session.ack(party.id, bytes);
    }
    case T.sessionEnd:
      return session.leave(party.id, 'closed the terminal');
    default:
      return; // j (ready to join) and others need no answer
  }
}

function answer(socket: WebSocket, response: CreateSessionResponse): void {
  socket.send(JSON.stringify(response));
}

const toText = (data: RawData) => Buffer.from(toBytes(data)).toString('utf8');

function safeJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
