import {
  apiPaths,
  okBody,
  trustedClusterContentRequestSchema,
  type TrustedClusterItem,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { TrustedClustersService } from './trusted-clusters.service.js';

type NameParams = { Params: { name: string } };

/** Trusted clusters of this (leaf) cluster (spec §7 `trustedcluster/{name?}`): YAML items. */
export async function trustedClustersRoutes(
  app: FastifyInstance,
  { trustedClusters }: { trustedClusters: TrustedClustersService },
) {
  app.get(
    apiPaths.trustedClusters,
    { config: { access: { area: 'trustedClusters', verb: 'list' } } },
    async (request): Promise<TrustedClusterItem[]> =>
      (await trustedClusters.list(actorOf(request))).map((tc) => trustedClusters.item(tc)),
  );

  app.post(
    apiPaths.trustedClusters,
    { config: { access: { area: 'trustedClusters', verb: 'create' } } },
    async (request): Promise<TrustedClusterItem> => {
      const { content } = parseInput(trustedClusterContentRequestSchema, request.body);
      return trustedClusters.item(await trustedClusters.create(content, actorOf(request)));
    },
  );

  app.put<NameParams>(
    apiPaths.patterns.trustedCluster,
    { config: { access: { area: 'trustedClusters', verb: 'edit' } } },
    async (request): Promise<TrustedClusterItem> => {
      const { content } = parseInput(trustedClusterContentRequestSchema, request.body);
      const saved = await trustedClusters.update(request.params.name, content, actorOf(request));
      return trustedClusters.item(saved);
    },
  );

  app.delete<NameParams>(
    apiPaths.patterns.trustedCluster,
    { config: { access: { area: 'trustedClusters', verb: 'remove' } } },
    async (request) => {
      await trustedClusters.remove(request.params.name, actorOf(request));
      return okBody;
    },
  );
}
