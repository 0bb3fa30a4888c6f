import { terminalResumeFrameSchema, type CreateSessionResponse } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import WebSocket, { type RawData } from 'ws';
import { z } from 'zod';
import { accessDenied } from '../../errors.js';
import { toBytes } from '../../websocket/frames.js';
import { keepAlive } from '../../websocket/keep-alive.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { PeerProofs, peerClaimBase } from '../sessions/peer-proof.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { pinnedTo } from '../sessions/remote-session.js';
import type { SessionTracker } from '../sessions/session-tracker.store.js';
import { partySocketClosed, resumeOn, type ResumeRequest } from './resume-socket.js';
import { SessionResumes, type ResumeRefusal } from './session-resumes.js';
import { onFrame } from './terminal-socket.js';

/**
 * Resuming a session another proxy holds (docs/protocol.md §6.1): behind a balancer, the
 * owner's new connection may land on a proxy that does not hold the session. That proxy signs
 * the user in as always, then relays the client's socket, frame for frame, to the holder's
 * internal resume route, proven under the cluster secret (peer-proof.ts, purpose `resume`),
 * over TLS pinned to the certificate the holder's tracker names. The holder checks the key and
 * moves the party, as for a resume of its own; a drop of either leg is a drop for the session.
 */
export const peerResumePath = (sid: string) =>
  `/v1/proxy/sessions/${encodeURIComponent(sid)}/resume`;
const peerResumePattern = '/v1/proxy/sessions/:sid/resume';

const resumeClaimSchema = peerClaimBase.extend({
  sid: z.string().min(1),
  user: z.string().min(1),
  /** The client's address, for the holder's audit of the resume. */
  addr: z.string().optional(),
});
type ResumeClaim = z.infer<typeof resumeClaimSchema>;
/** A relayed resume, or (`leave`) a relayed give-up of the session: `received` is then moot. */
const peerRequestSchema = terminalResumeFrameSchema.shape.resume.extend({
  leave: z.literal(true).optional(),
});

/** The relaying proxy's end: what the client sends goes on, and how its socket closed. */
export interface ResumeLink {
  send(data: RawData, isBinary: boolean): void;
  clientClosed(code: number): void;
}

/** Relays a resume to the proxy holding the session: a link, or why it cannot be reached. */
export type RelayResume = (
  holder: SessionTracker,
  who: { user: string; addr?: string },
  request: ResumeRequest,
  client: WebSocket,
) => Promise<ResumeLink | string>;

/** Gives up, on the proxy holding it, a session whose client was resuming it: true, or why not. */
export type RelayLeave = (
  holder: SessionTracker,
  who: { user: string; addr?: string },
  request: { sid: string; key: string },
) => Promise<true | string>;

interface RelayDeps {
  proofs: PeerProofs;
  pingIntervalMs: number;
  connectTimeoutMs?: number;
}

/** Why a relay failed, as the client hears it: the holder's internal address is nothing for it. */
const unreachable = 'the proxy holding it cannot be reached';

/** An open socket to the holder's resume route for `sid`, proven for `who`; undefined if none. */
async function dialHolder(
  deps: RelayDeps,
  holder: SessionTracker,
  who: { user: string; addr?: string },
  sid: string,
): Promise<WebSocket | undefined> {
  if (!holder.proxyAddr) return undefined;
  const headers = await deps.proofs.signFor('resume', {
    to: holder.proxyId,
    sid,
    user: who.user,
    ...(who.addr ? { addr: who.addr } : {}),
  });
  const url = new URL(peerResumePath(sid), holder.proxyAddr.replace(/^http/, 'ws'));
  const peer = new WebSocket(url, {
    headers,
    handshakeTimeout: deps.connectTimeoutMs ?? 10_000,
    ...pinnedTo(holder.proxyCert),
  });
  peer.on('error', () => undefined); // answered below while connecting; a close after that
  const reached = await new Promise<boolean>((resolve) => {
    peer.once('open', () => resolve(true));
    peer.once('unexpected-response', () => {
      peer.terminate();
      resolve(false);
    });
    peer.once('error', () => resolve(false));
  });
  return reached ? peer : undefined;
}

export function resumeRelay(deps: RelayDeps): RelayResume {
  return async (holder, who, request, client) => {
    const peer = await dialHolder(deps, holder, who, request.sid);
    if (!peer) return unreachable;
    peer.send(JSON.stringify(request));
    const alive = keepAlive(peer, deps.pingIntervalMs);
    peer.on('message', (data: RawData, isBinary: boolean) => {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    peer.on('close', (code: number, reason: Buffer) => {
      alive.stop();
      closeLike(client, code, reason.toString('utf8'));
    });
    return {
      send: (data, isBinary) => {
        if (peer.readyState === WebSocket.OPEN) peer.send(data, { binary: isBinary });
      },
      clientClosed: (code) => closeLike(peer, code, 'the client left'),
    };
  };
}

/** The holder answers a relayed give-up once, with the refusal a resume would get, then closes. */
export function leaveRelay(deps: RelayDeps): RelayLeave {
  return async (holder, who, request) => {
    const peer = await dialHolder(deps, holder, who, request.sid);
    if (!peer) return unreachable;
    const answer = await new Promise<string>((resolve) => {
      // A holder that takes the socket and never answers does not hold the request forever.
      const timer = setTimeout(() => resolve(''), deps.connectTimeoutMs ?? 10_000);
      const settle = (text: string) => {
        clearTimeout(timer);
        resolve(text);
      };
      peer.once('message', (data: RawData) => settle(Buffer.from(toBytes(data)).toString('utf8')));
      peer.once('close', () => settle(''));
      peer.send(JSON.stringify({ ...request, received: 0, leave: true }));
    });
    peer.close(1000, 'left');
    const parsed = safeJson(answer) as Partial<CreateSessionResponse> | undefined;
    if (parsed?.status === 'ok') return true;
    return parsed?.message?.replace(/^the session cannot be resumed: /, '') || unreachable;
  };
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Passes a close on: a drop (1006) as a drop, so the other side waits for a resume too. */
function closeLike(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CLOSED) return;
  if (code === 1006) return socket.terminate();
  const sendable = code === 1000 || code === 1001 || (code >= 3000 && code < 5000);
  socket.close(sendable ? code : 1000, reason.slice(0, 120));
}

export interface PeerResumeRouteOptions {
  proofs: PeerProofs;
  proxyId: string;
  resumes: SessionResumes;
  pingIntervalMs: number;
}

/** The holder's end: the internal route a relaying proxy resumes one of this proxy's sessions on. */
export function peerResumeRoute(app: FastifyInstance, options: PeerResumeRouteOptions): void {
  const claims = new WeakMap<FastifyRequest, ResumeClaim>();
  app.get<{ Params: { sid: string } }>(
    peerResumePattern,
    {
      websocket: true,
      config: { access: 'public' },
      preValidation: async (request) => {
        const verdict = await options.proofs.verifyFor(
          'resume',
          resumeClaimSchema,
          request.headers,
          options.proxyId,
        );
        if (!verdict.ok) throw accessDenied(`access denied: ${verdict.reason}`);
        if (verdict.claim.sid !== request.params.sid) {
          throw accessDenied('access denied: proof for another session');
        }
        claims.set(request, verdict.claim);
      },
    },
    (socket, request) => {
      const claim = claims.get(request);
      if (!claim) return socket.close(1008, 'no proof');
      const alive = keepAlive(socket, options.pingIntervalMs);
      let taken: ReturnType<typeof resumeOn> | undefined;
      socket.on('message', (data: RawData, isBinary: boolean) => {
        if (taken && !('refused' in taken)) {
          if (isBinary) onFrame(taken.session, taken.party, toBytes(data));
          return;
        }
        if (taken) return;
        taken = firstFrame(socket, options.resumes, claim, data);
      });
      socket.on('close', (code: number) => {
        alive.stop();
        if (taken && !('refused' in taken)) {
          partySocketClosed(socket, code, options.resumes, taken.session, taken.party);
        }
      });
      closeOnProtocolError(socket);
    },
  );
}

/**
 * The relayed client's key and offset: the resume, or its refusal as the client would get it.
 * A relayed give-up (`leave`) is answered and closed here, and taken no further.
 */
function firstFrame(
  socket: WebSocket,
  resumes: SessionResumes,
  claim: ResumeClaim,
  data: RawData,
): ReturnType<typeof resumeOn> {
  const request = peerRequestSchema.safeParse(safeJson(Buffer.from(toBytes(data)).toString()));
  if (!request.success || request.data.sid !== claim.sid) {
    return refuse(socket, 'a bad resume request');
  }
  const { leave, ...resume } = request.data;
  if (leave) {
    const refusal = resumes.abandon(resume.sid, claim.user, resume.key);
    if (refusal) return refuse(socket, refusal.refused);
    const answer: CreateSessionResponse = { type: 'create_session_response', status: 'ok' };
    socket.send(JSON.stringify(answer));
    socket.close(1000, 'left');
    return { refused: 'left' };
  }
  const taken = resumeOn(socket, resumes, claim.user, resume, claim.addr);
  return 'refused' in taken ? refuse(socket, taken.refused) : taken;
}

/** As this proxy would refuse its own client; one held elsewhere again is not relayed twice. */
function refuse(socket: WebSocket, why: string): ResumeRefusal {
  const answer: CreateSessionResponse = {
    type: 'create_session_response',
    status: 'error',
    message: `the session cannot be resumed: ${why}`,
  };
  socket.send(JSON.stringify(answer));
  socket.close(1000, 'not resumed');
  return { refused: why };
}

/**
 * What every terminal socket of a proxy resumes with (docs/protocol.md §6.1): one set of
 * resumable sessions, the relay to other proxies, and the options of the holder's route.
 */
export function buildTerminalResumes(deps: {
  graceMs: number;
  hub: Pick<SessionHub, 'tracker' | 'proxyId'>;
  backend: Backend;
  now: Clock;
  pingIntervalMs: number;
}) {
  const { hub, pingIntervalMs } = deps;
  const proofs = new PeerProofs({ backend: deps.backend, now: deps.now });
  // Another proxy's session of this very user: anyone else learns nothing of it.
  const resumes = new SessionResumes(deps.graceMs, (sid, user) => {
    const tracker = hub.tracker(sid);
    return tracker && tracker.proxyId !== hub.proxyId && tracker.owner === user
      ? tracker
      : undefined;
  });
  return {
    resumes,
    relayResume: resumeRelay({ proofs, pingIntervalMs }),
    relayLeave: leaveRelay({ proofs, pingIntervalMs }),
    route: { proofs, proxyId: hub.proxyId, resumes, pingIntervalMs } as PeerResumeRouteOptions,
  };
}
