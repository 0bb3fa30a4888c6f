import type { FastifyInstance } from 'fastify';
import type { ReadinessService } from './readiness.service.js';

/** Where load balancers and orchestrators probe a proxy: outside the web API, no session. */
export const healthPaths = { live: '/healthz', ready: '/readyz' } as const;

/**
 * `GET /healthz`: liveness, the process answers. `GET /readyz`: readiness (200 or 503 with what
 * is not ready). Both public and uncached; neither says more than a word per check.
 */
export async function healthRoutes(
  app: FastifyInstance,
  { readiness }: { readiness: ReadinessService },
) {
  app.get(healthPaths.live, { config: { access: 'public' } }, async (_request, reply) => {
    void reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  app.get(healthPaths.ready, { config: { access: 'public' } }, async (_request, reply) => {
    const { ready, checks } = await readiness.check();
    void reply.header('cache-control', 'no-store').code(ready ? 200 : 503);
    const notReady = Object.entries(checks)
      .filter(([, value]) => value !== 'ok' && value !== 'skipped')
      .map(([name]) => name);
    return {
      status: ready ? 'ok' : 'not_ready',
      checks,
      ...(ready ? {} : { not_ready: notReady }),
    };
  });
}
