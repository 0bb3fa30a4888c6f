import { apiPrefix } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { ListenAddresses } from '../../config/listen-addresses.js';
import { formatHostPort } from '../../config/address.js';
import type { EchoService } from './echo.service.js';

export const echoStatusPath = `${apiPrefix}/example/echo`;

/** The example wing's one route; like every API route, it declares the ACL verb it needs. */
export async function echoRoutes(
  app: FastifyInstance,
  { echo, addresses }: { echo: EchoService; addresses: Pick<ListenAddresses, 'of'> },
) {
  app.get(
    echoStatusPath,
    { config: { access: { area: 'connectionDiagnostic', verb: 'read' } } },
    async () => {
      const bound = addresses.of('echo');
      return { address: bound ? formatHostPort(bound) : null, connections: echo.connections() };
    },
  );
}
