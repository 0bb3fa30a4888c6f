import { apiPaths, integrationInputSchema, okBody, type IntegrationJson } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { IntegrationsService } from './integrations.service.js';

interface IntegrationsRoutesOptions {
  integrations: IntegrationsService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };
type IntegrationParams = { Params: { clusterId: string; name: string } };

/** Manage Integrations and Send test message (docs/integrations.md). */
export async function integrationsRoutes(
  app: FastifyInstance,
  { integrations, clusterName }: IntegrationsRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.integrations,
    { config: { access: { area: 'integrations', verb: 'list' } } },
    async (request): Promise<{ items: IntegrationJson[] }> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return { items: await integrations.list(actorOf(request)) };
    },
  );

  app.get<IntegrationParams>(
    apiPaths.patterns.integration,
    { config: { access: { area: 'integrations', verb: 'read' } } },
    async (request): Promise<IntegrationJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return integrations.get(request.params.name, actorOf(request));
    },
  );

  app.post<ClusterParams>(
    apiPaths.patterns.integrations,
    { config: { access: { area: 'integrations', verb: 'create' } } },
    async (request): Promise<IntegrationJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const spec = parseInput(integrationInputSchema, request.body);
      return integrations.create(spec, actorOf(request));
    },
  );

  app.put<IntegrationParams>(
    apiPaths.patterns.integration,
    { config: { access: { area: 'integrations', verb: 'edit' } } },
    async (request): Promise<IntegrationJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const spec = parseInput(integrationInputSchema, request.body);
      return integrations.update(request.params.name, spec, actorOf(request));
    },
  );

  app.delete<IntegrationParams>(
    apiPaths.patterns.integration,
    { config: { access: { area: 'integrations', verb: 'remove' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      await integrations.remove(request.params.name, actorOf(request));
      return okBody;
    },
  );

  app.post<IntegrationParams>(
    apiPaths.patterns.integrationTest,
    { config: { access: { area: 'integrations', verb: 'use' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      return integrations.sendTest(request.params.name, actorOf(request));
    },
  );
}
