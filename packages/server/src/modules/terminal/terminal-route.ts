import type { ParticipantMode } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
} from '../../http/request-identity.js';
import { SessionMfa } from '../../identity/mfa/session-mfa.js';
import type { RelayResume } from './peer-resume.js';
import type { SessionResumes } from './session-resumes.js';
import { serveTerminalSocket, type TerminalSessions } from './terminal-socket.js';
import { inBandSocketRoute } from '../../http/in-band-socket.js';

export interface TerminalRouteOptions {
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  clusterName: string;
  pingIntervalMs: number;
  /** Per-session MFA for callers whose roles ask for it (absent: their sessions are refused). */
  sessionMfa?: Pick<SessionMfa, 'challenge' | 'verify'>;
  /**
   * The proxy's resumable sessions (the platform's: one for every terminal socket) and the relay
   * of resumes to other proxies; absent: a dropped connection ends the party, as a close does.
   */
  resumes?: SessionResumes;
  relayResume?: RelayResume;
}

type TerminalUpgrade = FastifyRequest<{
  Params: { clusterId: string } & Record<string, string>;
  Querystring: { params?: string; traceparent?: string };
}>;

/**
 * Registers a terminal WebSocket at `pattern` (the servers' shell, a database's SQL console, a
 * pod's exec): the upgrade itself is public, since the caller proves itself in-band (the cookie
 * of the upgrade plus the bearer of the first frame), so no secret ever sits in a URL or a log
 * line; a page of another origin is refused before the upgrade. `sessions` says, per upgrade,
 * what the socket's sessions are.
 */
export function terminalSocketRoute<Request extends { sid?: string; mode?: ParticipantMode }>(
  app: FastifyInstance,
  pattern: string,
  options: TerminalRouteOptions,
  sessions: (request: TerminalUpgrade) => TerminalSessions<Request>,
  logFields: (request: TerminalUpgrade) => object = () => ({}),
): void {
  app.get<{
    Params: { clusterId: string } & Record<string, string>;
    Querystring: { params?: string; traceparent?: string };
  }>(pattern, inBandSocketRoute(options.clusterName), (socket, request) => {
    const cookie = request.cookies[sessionCookieName];
    serveTerminalSocket(socket, {
      sessions: sessions(request),
      authenticate: (bearer) => identifyByCredentials(options.guard, cookie, bearer),
      params: request.query.params,
      pingIntervalMs: options.pingIntervalMs,
      // Bound to this socket (a fresh id) and its path and parameters: the server and login,
      // the database or the pod. An answer to one socket's challenge opens no other. A trusted
      // root's rule for its user counts here too; the root runs that user's check.
      mfaSubject: (identity) =>
        SessionMfa.requiredFor(identity) ? `terminal ${randomUUID()} ${request.url}` : undefined,
      ...(options.sessionMfa ? { mfa: options.sessionMfa } : {}),
      origin: request.headers.origin,
      resumes: options.resumes,
      relayResume: options.relayResume,
      remoteAddr: request.ip,
      log: (error, message) => request.log.error({ err: error, ...logFields(request) }, message),
    });
  });
}
