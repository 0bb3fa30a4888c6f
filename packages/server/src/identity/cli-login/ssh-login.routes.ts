import { apiPaths, sshCertsRequestSchema, type SshCertsResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import { requestContext } from '../auth/session-cookie.js';
import type { SshCertsService } from './ssh-certs.service.js';

export interface SshLoginRoutesOptions {
  certs: SshCertsService;
  loginRateLimit: { max: number; timeWindow: number };
}

/** The CLI's sign-in (docs/cli-login.md): a certificate for a password and second factor. */
export async function sshLoginRoutes(app: FastifyInstance, options: SshLoginRoutesOptions) {
  const { certs } = options;

  // No CSRF check: the CLI has no cookie, and nothing here acts on a browser's ambient session.
  app.post(
    apiPaths.sshCerts,
    { config: { access: 'public', rateLimit: options.loginRateLimit } },
    async (request): Promise<SshCertsResponse> => {
      const body = parseInput(sshCertsRequestSchema, request.body);
      return certs.login(body, requestContext(request));
    },
  );
}
