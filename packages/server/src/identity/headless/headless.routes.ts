import {
  apiPaths,
  headlessActionRequestSchema,
  headlessLoginRequestSchema,
  okBody,
  type HeadlessLoginResponse,
  type HeadlessRequestView,
  type HeadlessWaitResponse,
  type MfaChallenge,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { requestContext } from '../auth/session-cookie.js';
import type { HeadlessService } from './headless.service.js';

export interface HeadlessRoutesOptions {
  headless: HeadlessService;
  loginRateLimit: { max: number; timeWindow: number };
}

type RequestParams = { Params: { requestId: string } };

const userOf = (request: FastifyRequest) => actorOf(request).name;

/** Headless login (spec §7 `headless/{requestId}`; docs/cli-login.md). */
export async function headlessRoutes(app: FastifyInstance, options: HeadlessRoutesOptions) {
  const { headless, loginRateLimit } = options;

  // The CLI's calls: no session, so public; creating is limited like sign-in, and polling needs
  // the unguessable id. No CSRF check: no cookie is involved.
  app.post(
    apiPaths.headlessLogin,
    { config: { access: 'public', rateLimit: loginRateLimit } },
    async (request): Promise<HeadlessLoginResponse> => {
      const body = parseInput(headlessLoginRequestSchema, request.body);
      return headless.create(body, requestContext(request));
    },
  );

  app.get<RequestParams>(
    apiPaths.patterns.headlessWait,
    { config: { access: 'public' } },
    async (request): Promise<HeadlessWaitResponse> =>
      headless.wait(request.params.requestId, requestContext(request)),
  );

  // The approving browser's calls.
  app.get<RequestParams>(
    apiPaths.patterns.headless,
    { config: { access: 'authenticated' } },
    async (request): Promise<HeadlessRequestView> =>
      headless.view(request.params.requestId, userOf(request)),
  );

  app.post<RequestParams>(
    apiPaths.patterns.headlessChallenge,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaChallenge> =>
      headless.challenge(request.params.requestId, userOf(request)),
  );

  app.put<RequestParams>(
    apiPaths.patterns.headless,
    { config: { access: 'authenticated', rateLimit: loginRateLimit } },
    async (request) => {
      const body = parseInput(headlessActionRequestSchema, request.body);
      await headless.answer(
        request.params.requestId,
        userOf(request),
        body,
        requestContext(request),
      );
      return okBody;
    },
  );
}
