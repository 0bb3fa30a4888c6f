import {
  peerResumeRoute,
  type PeerResumeRouteOptions,
} from '../../../modules/terminal/peer-resume.js';
import { apiPaths, terminalRequestSchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { GuardDeps } from '../../../http/request-identity.js';
import type { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import {
  peerJoinRoute,
  type PeerJoinRouteOptions,
} from '../../../modules/terminal/peer-join-route.js';
import {
  terminalSocketRoute,
  type TerminalRouteOptions,
} from '../../../modules/terminal/terminal-route.js';
import { requesterOf, type TerminalService } from './terminal.service.js';

interface TerminalRoutesOptions {
  terminals: TerminalService;
  guard: Pick<GuardDeps, 'sessions' | 'access'>;
  sessionMfa?: Pick<SessionMfa, 'challenge' | 'verify'>;
  clusterName: string;
  pingIntervalMs: number;
  resumes?: TerminalRouteOptions['resumes'];
  relayResume?: TerminalRouteOptions['relayResume'];
  /** The internal route other proxies relay resumes of this one's sessions through. */
  peerResume?: PeerResumeRouteOptions;
  /** The internal route other proxies join this one's sessions through (absent: none). */
  peers?: Omit<PeerJoinRouteOptions, 'pingIntervalMs'>;
}

const traceparentPattern = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The terminal WebSocket (spec §7, reference §2.1): a shell or command on a server, or a join
 * of any live session by its id (terminal-route.ts says how the upgrade is proven).
 */
export async function terminalRoutes(app: FastifyInstance, options: TerminalRoutesOptions) {
  const { terminals } = options;
  const traceIdOf = (request: { query: { traceparent?: string } }) =>
    traceparentPattern.exec(request.query.traceparent ?? '')?.[1] ?? '';
  terminalSocketRoute<z.output<typeof terminalRequestSchema>>(
    app,
    apiPaths.patterns.terminalConnect,
    options,
    (request) => ({
      request: terminalRequestSchema,
      start: (identity, params) =>
        terminals.start(requesterOf(identity), {
          serverId: params.server_id,
          login: params.login,
          size: params.term,
          command: params.command,
          traceId: traceIdOf(request),
          remoteAddr: request.ip,
        }),
      joinable: (identity, sid, mode) => terminals.joinable(requesterOf(identity), sid, mode),
      guardParty: (identity, session, party) => terminals.guardParty(identity, session, party),
    }),
    (request) => ({ traceId: traceIdOf(request) }),
  );
  if (options.peerResume) peerResumeRoute(app, options.peerResume);
  if (options.peers) {
    peerJoinRoute(app, { ...options.peers, pingIntervalMs: options.pingIntervalMs });
  }
}
