import { apiPaths } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../blobs/blob-store.js';
import { resolveClusterId } from '../../cluster-context.js';
import {
  actorOf,
  identifyByCredentials,
  sessionCookieName,
  type GuardDeps,
} from '../../http/request-identity.js';
import type { AuditStore } from '../audit/index.js';
import { serveDesktopPlayback } from './desktop-playback-socket.js';
import { DesktopRecordingsService } from './desktop-recordings.service.js';
import { inBandSocketRoute } from '../../http/in-band-socket.js';

export interface DesktopRecordingRoutesDeps {
  /** The blob store recordings live in (`ctx.recordings.blobs`). */
  blobs: BlobStore;
  audit: AuditStore;
  guard: Pick<GuardDeps, 'sessions' | 'access' | 'locks'>;
  clusterName: string;
  pingIntervalMs: number;
  /** Unread bytes past which the playback waits for its client (default 4 MiB). */
  highWaterBytes?: number;
}

type SidRequest = FastifyRequest<{ Params: { clusterId: string; sid: string } }>;

/**
 * Desktop recordings' routes, for the desktops wing to register (`desktopRecordingRoutes(server,
 * {...})`): the info a player shows first (`GET …/desktopplayback/:sid`, `recordedSessions`
 * read), and the playback socket (`…/desktopplayback/:sid/ws`), whose upgrade is public like
 * the terminal sockets' since the caller proves itself in its first frame; a page of another
 * origin is refused before the upgrade.
 */
export async function desktopRecordingRoutes(
  app: FastifyInstance,
  deps: DesktopRecordingRoutesDeps,
): Promise<void> {
  const recordings = new DesktopRecordingsService(deps.blobs, deps.audit);
  const read = { config: { access: { area: 'recordedSessions', verb: 'read' } } } as const;

  app.get(apiPaths.patterns.desktopRecordingInfo, read, async (request: SidRequest) => {
    resolveClusterId(request.params.clusterId, deps.clusterName);
    const reader = { actor: actorOf(request), ip: request.ip };
    return recordings.info(reader, request.params.sid);
  });

  app.get<{ Params: { clusterId: string; sid: string } }>(
    apiPaths.patterns.desktopPlayback,
    inBandSocketRoute(deps.clusterName),
    (socket, request) => {
      const cookie = request.cookies[sessionCookieName];
      serveDesktopPlayback(socket, {
        authenticate: (bearer) => identifyByCredentials(deps.guard, cookie, bearer),
        locks: deps.guard.locks,
        open: (identity) =>
          recordings.openForPlayback(
            { actor: { name: identity.user, roleSet: identity.roleSet }, ip: request.ip },
            request.params.sid,
          ),
        blobs: deps.blobs,
        pingIntervalMs: deps.pingIntervalMs,
        highWaterBytes: deps.highWaterBytes,
        log: (error, message) =>
          request.log.error({ err: error, sid: request.params.sid }, message),
      });
    },
  );
}
