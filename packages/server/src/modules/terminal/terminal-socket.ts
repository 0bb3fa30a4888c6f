import {
  decodeEnvelopeBytes,
  encodeEnvelope,
  fileTransferDecisionFrameSchema,
  fileTransferDecisionRefused,
  fileTransferRequestFrameSchema,
  fileTransferRequestRefused,
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
import { webSessionMarks, type Identity } from '../../http/request-identity.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { Party } from '../sessions/party.js';
import type { JoinedSession } from '../sessions/remote-session.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';
import { WebSocketParty } from './websocket-party.js';
import { toBytes } from '../../websocket/frames.js';
import { keepAlive } from '../../websocket/keep-alive.js';
import type { ResumeLink, RelayResume } from './peer-resume.js';
import { partySocketClosed, resumeOn, type ResumeRequest } from './resume-socket.js';
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
  /** Relays a resume of a session another proxy holds to that proxy. */
  relayResume?: RelayResume;
  /** The client's address, for the audit of a resume. */
  remoteAddr?: string;
  log: (error: unknown, message: string) => void;
  /** After this long a start still under way is reported to the client (default 2 s). */
  slowStartNoticeMs?: number;
}

const decoder = new TextDecoder();
const defaultSlowStartNoticeMs = 2000;
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
  let stage: 'auth' | 'starting' | 'live' | 'relayed' | 'closed' = 'auth';
  // A resume of a session another proxy holds: this socket is relayed to it (peer-resume.ts).
  let relay: ResumeLink | undefined;
  let closedWith: number | undefined;
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
    if (stage === 'relayed') return relay?.send(data, isBinary);
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
    closedWith = code;
    clearTimeout(authTimer);
    alive.stop();
    stage = 'closed';
    mfaAnswer?.reject(new ApiError('connection_problem', 'the client disconnected'));
    stopGuard?.();
    relay?.clientClosed(code);
    if (session && party) partySocketClosed(socket, code, options.resumes, session, party);
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
    if (resume.success) return await resumeSession(identity, resume.data.resume);
    const request = options.sessions.request.safeParse(safeJson(options.params));
    if (!request.success) {
      stage = 'auth';
      return fail(`bad terminal parameters: ${request.error.issues[0]?.message ?? 'invalid'}`);
    }
    answer(socket, { type: 'create_session_response', status: 'ok' });
    // Before a session starts or is joined: nothing of it is shown to an unchecked caller.
    const subject = options.mfaSubject?.(identity);
    let caller: Identity = identity;
    if (subject !== undefined) {
      const checkedWith = await passMfa(identity.user, subject);
      if (socket.readyState !== socket.OPEN) return;
      caller = { ...identity, mfaVerified: true };
      if (checkedWith) caller.sessionMfaDevice = checkedWith;
    }
    const marks = webSessionMarks(caller);
    const { sid, mode } = request.data;
    if (sid) {
      const joined = options.sessions.joinable(caller, sid, mode);
      session = joined.session;
      party = new WebSocketParty(socket, caller.user, caller.roles, joined.mode, marks);
      stopGuard = options.sessions.guardParty(caller, session, party);
    } else {
      const started = await startSaying(() => options.sessions.start(caller, request.data));
      session = started;
      party = new WebSocketParty(socket, caller.user, caller.roles, 'peer', marks);
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
   * Starts the session; a start that takes long (a busy agent, a proxy failing over) is said to
   * the client at once, rather than left as a blank screen until the dial's timeout.
   */
  async function startSaying<T>(start: () => Promise<T>): Promise<T> {
    const slowMs = options.slowStartNoticeMs ?? defaultSlowStartNoticeMs;
    const timer = setTimeout(() => {
      if (socket.readyState !== socket.OPEN) return;
      const event = { event: 'session.starting', elapsed_ms: slowMs };
      socket.send(encodeEnvelope(T.audit, JSON.stringify(event)));
    }, slowMs);
    try {
      return await start();
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The owner's client comes back after its connection dropped (docs/protocol.md §6.1), as the
   * same user with the session's last key: here (resume-socket.ts), or relayed to the proxy
   * that holds the session (peer-resume.ts).
   */
  async function resumeSession(identity: Identity, request: ResumeRequest): Promise<void> {
    const resumes = options.resumes;
    let taken = resumes
      ? resumeOn(socket, resumes, identity.user, request, options.remoteAddr)
      : { refused: 'this socket resumes no sessions' };
    if (!('refused' in taken)) {
      ({ session, party } = taken);
      stage = 'live';
      for (const frame of early.splice(0)) onFrame(session, party, frame);
      return;
    }
    if (taken.holder && options.relayResume) {
      const who = { user: identity.user, addr: options.remoteAddr };
      const link = await options.relayResume(taken.holder, who, request, socket);
      if (typeof link !== 'string') {
        relay = link;
        // The client went while the holder was reached: the holder hears how it went.
        if (stage === 'closed') return link.clientClosed(closedWith ?? 1000);
        stage = 'relayed';
        for (const frame of early.splice(0)) link.send(Buffer.from(frame), true);
        return;
      }
      taken = { refused: link };
    }
    stage = 'auth';
    fail(`the session cannot be resumed: ${taken.refused}`);
  }

  /**
   * Sends the challenge on an `n` frame and checks the answer that comes back on one; resolves
   * with the device that answered.
   */
  async function passMfa(user: string, subject: string): Promise<string | undefined> {
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
    return await mfa.verify(user, subject, response.data, options.origin);
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
    case T.fileTransferRequest: {
      const request = fileTransferRequestFrameSchema.safeParse(safeJson(decoder.decode(body)));
      if (!request.success) return party.error(`${fileTransferRequestRefused}${issue(request)}`);
      return session.requestFileTransfer(party.id, request.data);
    }
    case T.fileTransferDecision: {
      const decision = fileTransferDecisionFrameSchema.safeParse(safeJson(decoder.decode(body)));
      if (!decision.success) {
        return party.error(`${fileTransferDecisionRefused}${issue(decision)}`);
      }
      return session.decideFileTransfer(party.id, decision.data);
    }
    default:
      return; // j (ready to join) and others need no answer
  }
}

/** The first thing wrong with a frame, in words. */
const issue = (parsed: { error?: { issues: { path: PropertyKey[]; message: string }[] } }) => {
  const first = parsed.error?.issues[0];
  if (!first) return 'invalid';
  return first.path.length > 0 ? `${first.path.join('.')}: ${first.message}` : first.message;
};

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
