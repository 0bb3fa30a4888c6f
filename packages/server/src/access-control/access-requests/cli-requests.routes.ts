import {
  accessRequestScopes,
  apiPaths,
  assumeCertRequestSchema,
  createAccessRequestSchema,
  submitReviewSchema,
  type AccessRequestJson,
  type AccessRequestList,
  type SshCertsResponse,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { CertIssuer } from '../../identity/cli-login/cert-issuer.js';
import { certifiableKey } from '../../identity/cli-login/cert-issuer.js';
import type { Actor } from '../access/actor.js';
import { accessDenied } from '../../errors.js';
import { mfaDeviceOf, POSTERN_BOT_INSTANCE_EXTENSION } from '../../ssh/ca.service.js';
import type { AccessRequestsService } from './access-requests.service.js';

interface CliRequestsRoutesOptions {
  accessRequests: AccessRequestsService;
  certAuth: Pick<CertRequestAuth, 'identify' | 'identifyAllowed'>;
  issuer: Pick<CertIssuer, 'issue'>;
}

const listQuerySchema = z.object({ scope: z.enum(accessRequestScopes).default('all') });
type RequestParams = { Params: { requestId: string } };
type Verb = 'list' | 'read' | 'create';

/**
 * `postern request …` and `postern login --request-id` (docs/access-requests.md): the access
 * request calls of the console, signed with the user's certificate instead of a web session, and
 * a certificate that assumes approved requests. Public for the guard: the signature authenticates.
 */
export async function cliRequestsRoutes(
  app: FastifyInstance,
  { accessRequests, certAuth, issuer }: CliRequestsRoutesOptions,
) {
  /** The signer, with the same ACL check the console's routes make. */
  const signer = async (request: FastifyRequest, verb: Verb): Promise<Actor> => {
    const { user, roleSet } = await certAuth.identifyAllowed(request, 'accessRequests', verb);
    return { name: user, roleSet };
  };
  const signed = { config: { access: 'public' } } as const;

  app.get(apiPaths.cliAccessRequests, signed, async (request): Promise<AccessRequestList> => {
    const actor = await signer(request, 'list');
    const { scope } = parseInput(listQuerySchema, request.query);
    return { items: await accessRequests.list(actor, scope) };
  });

  app.post(apiPaths.cliAccessRequests, signed, async (request): Promise<AccessRequestJson> => {
    const actor = await signer(request, 'create');
    return accessRequests.create(parseInput(createAccessRequestSchema, request.body), actor);
  });

  app.get<RequestParams>(apiPaths.patterns.cliAccessRequest, signed, async (request) =>
    accessRequests.get(request.params.requestId, await signer(request, 'read')),
  );

  app.post<RequestParams>(apiPaths.patterns.cliAccessRequestReviews, signed, async (request) => {
    const actor = await signer(request, 'read');
    const body = parseInput(submitReviewSchema, request.body);
    return accessRequests.review(request.params.requestId, body, actor);
  });

  // Any signed-in user may drop assumed requests; assuming checks each one is theirs and approved.
  app.post(apiPaths.sshCertsAssume, signed, async (request): Promise<SshCertsResponse> => {
    const { user, roles, extensions } = await certAuth.identify(request);
    // A bot's certificates come only from its renewals, which track their generation.
    if (extensions[POSTERN_BOT_INSTANCE_EXTENSION]) {
      throw accessDenied('a bot renews its certificate through bots/renew, not here');
    }
    const body = parseInput(assumeCertRequestSchema, request.body);
    const assumed = await Promise.all(
      [...new Set(body.request_ids)].map((id) => accessRequests.assumable(id, user)),
    );
    const ends = assumed.map((r) => Date.parse(r.spec.accessExpires));
    return issuer.issue({
      user,
      roles: roles.filter((role) => !assumedRolesOf(assumed).has(role)),
      publicKey: certifiableKey(body.pub_key),
      requestedTtlMs: body.ttl,
      addr: request.ip,
      mfaDevice: mfaDeviceOf(extensions),
      ...(assumed.length
        ? { assumed: { ids: assumed.map((r) => r.metadata.name), endsAt: Math.min(...ends) } }
        : {}),
    });
  });
}

const assumedRolesOf = (requests: { spec: { roles: string[] } }[]) =>
  new Set(requests.flatMap((r) => r.spec.roles));
