import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * While a proxy drains before it stops, HTTP keeps working but every answer says
 * `Connection: close`: the client's next request opens a new connection, which the load balancer
 * (having seen /readyz fail) sends to another proxy. Nothing is refused, so a console page, an
 * app or `kubectl get` sees no error; clients simply move. Long requests (watches, exec) go on
 * until the drain ends them.
 */
export function closeAfterResponse(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('connection', 'close');
}

/** The same for every route of the web listener (the console, the web API and apps). */
export function closeConnectionsWhileDraining(
  server: FastifyInstance,
  draining: () => boolean,
): void {
  server.addHook('onRequest', async (_request, reply) => {
    if (draining()) closeAfterResponse(reply.raw);
  });
}
