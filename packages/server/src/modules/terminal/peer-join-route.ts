import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RawData } from 'ws';
import { lockMessage, marksOf, type LockView } from '../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { accessDenied, notFound } from '../../errors.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';
import { participantModesFor } from '../sessions/join-policy.js';
import { peerJoinPattern, type PeerClaim, type PeerProofs } from '../sessions/peer-proof.js';
import type { SessionHub } from '../sessions/session-hub.js';
import { onFrame } from './terminal-socket.js';
import { keepAlive } from '../../websocket/keep-alive.js';
import { WebSocketParty } from './websocket-party.js';
import { toBytes } from '../../websocket/frames.js';

export interface PeerJoinRouteOptions {
  hub: SessionHub;
  proofs: PeerProofs;
  /** The RoleSet of the joiner's roles, from the watched roles. */
  roleSetFor: (user: string, roles: readonly string[]) => RoleSet;
  locks: Pick<LockView, 'lockFor'>;
  pingIntervalMs: number;
}

/**
 * The internal route through which another proxy of the cluster joins a session this proxy
 * holds, for a user it signed in and judged (remote-session.ts is the other end). The upgrade
 * must carry a fresh, unused proof for this proxy (peer-proof.ts); the session must be here and
 * still allow the mode to the joiner's roles, who must not be locked. The socket then carries
 * the terminal envelope, as a browser's would, and the joiner is a party like any other: this
 * proxy's hub judges it (locks, moderation, who may type).
 */
export function peerJoinRoute(app: FastifyInstance, options: PeerJoinRouteOptions): void {
  const claims = new WeakMap<FastifyRequest, PeerClaim>();
  app.get<{ Params: { sid: string } }>(
    peerJoinPattern,
    {
      websocket: true,
      config: { access: 'public' },
      preValidation: async (request) => {
        const verdict = await options.proofs.verify(request.headers, options.hub.proxyId);
        if (!verdict.ok) throw accessDenied(`access denied: ${verdict.reason}`);
        const { claim } = verdict;
        if (claim.sid !== request.params.sid) {
          throw accessDenied('access denied: proof for another session');
        }
        const session = options.hub.get(claim.sid);
        if (!session || session.isEnded) throw notFound(`session ${claim.sid} is not found`);
        const viewer = { user: claim.user, roleSet: options.roleSetFor(claim.user, claim.roles) };
        const modes = participantModesFor(viewer, session.toTracker());
        if (!modes.includes(claim.mode)) {
          throw accessDenied(`access denied: you may not join this session as ${claim.mode}`);
        }
        const { user, roles } = claim;
        const lock = options.locks.lockFor({ user, roles, ...marksOf(claim) });
        if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
        claims.set(request, claim);
      },
    },
    (socket, request) => {
      const claim = claims.get(request);
      const session = claim && options.hub.get(claim.sid);
      if (!claim || !session) return socket.close(1000, 'the session ended');
      const party = new WebSocketParty(socket, claim.user, claim.roles, claim.mode, marksOf(claim));
      const alive = keepAlive(socket, options.pingIntervalMs);
      socket.on('message', (data: RawData, isBinary: boolean) => {
        if (isBinary) onFrame(session, party, toBytes(data));
      });
      socket.on('close', (_code: number, reason: Buffer) => {
        alive.stop();
        session.leave(party.id, reason.toString('utf8') || 'disconnected');
      });
      closeOnProtocolError(socket);
      session.join(party).catch((error: unknown) => {
        request.log.error({ err: error }, 'joining for another proxy failed');
        socket.close(1011, 'internal error');
      });
    },
  );
}
