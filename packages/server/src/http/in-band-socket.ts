import type { FastifyRequest } from 'fastify';
import { resolveClusterId } from '../cluster-context.js';
import { accessDenied } from '../errors.js';
import { sameOrigin } from './same-origin.js';

/**
 * The route options of a WebSocket whose caller proves itself in-band (the upgrade's cookie,
 * then the bearer in the first frame), so that no secret is ever in a URL: the upgrade itself
 * is public, but only for this cluster (`:clusterId`) and never for a page of another origin.
 */
export function inBandSocketRoute(clusterName: string) {
  return {
    websocket: true as const,
    config: { access: 'public' as const },
    preValidation: async (request: FastifyRequest<{ Params: { clusterId: string } }>) => {
      resolveClusterId(request.params.clusterId, clusterName);
      if (!sameOrigin(request)) throw accessDenied('access denied: foreign origin');
    },
  };
}
