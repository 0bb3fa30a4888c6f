import { apiPaths, createLockRequestSchema, okBody, type LockJson } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { lockJson, type LocksService } from './locks.service.js';

interface LocksRoutesOptions {
  locks: LocksService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };
type LockParams = { Params: { clusterId: string; uuid: string } };

/** Manage Session & Identity Locks (spec §7 `locks`, `locks/{uuid}`; reference §1.10). */
export async function locksRoutes(
  app: FastifyInstance,
  { locks, clusterName }: LocksRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.locks,
    { config: { access: { area: 'lock', verb: 'list' } } },
    async (request): Promise<LockJson[]> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return (await locks.list(actorOf(request))).map(lockJson);
    },
  );

  app.put<ClusterParams>(
    apiPaths.patterns.locks,
    { config: { access: { area: 'lock', verb: 'create' } } },
    async (request): Promise<LockJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(createLockRequestSchema, request.body);
      return lockJson(await locks.create(body, actorOf(request)));
    },
  );

  app.delete<LockParams>(
    apiPaths.patterns.lock,
    { config: { access: { area: 'lock', verb: 'remove' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      await locks.remove(request.params.uuid, actorOf(request));
      return okBody;
    },
  );
}
