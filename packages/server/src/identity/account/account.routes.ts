import {
  addMfaDeviceRequestSchema,
  apiPaths,
  changePasswordRequestSchema,
  okBody,
  passwordChallengeRequestSchema,
  privilegeTokenRequestSchema,
  type MfaChallenge,
  type MfaDevice,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notAuthenticated } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { requestContext } from '../auth/session-cookie.js';
import type { AccountService } from './account.service.js';
import type { DevicesService } from './devices.service.js';

export interface AccountRoutesOptions {
  account: AccountService;
  devices: DevicesService;
  loginRateLimit: { max: number; timeWindow: number };
}

type DeviceParams = { Params: { tokenId: string; deviceName: string } };
type TokenParams = { Params: { tokenId: string } };

const userOf = (request: FastifyRequest) => {
  if (!request.identity) throw notAuthenticated();
  return request.identity.user;
};

/** Account settings: password, second-factor devices and privilege tokens (reference §1.12-1.13). */
export async function accountRoutes(app: FastifyInstance, options: AccountRoutesOptions) {
  const { account, devices, loginRateLimit } = options;
  // These check a password or a second factor, so they are limited like the sign-in calls.
  const checksSecrets = { access: 'authenticated', rateLimit: loginRateLimit } as const;

  app.put(apiPaths.changePassword, { config: checksSecrets }, async (request) => {
    const body = parseInput(changePasswordRequestSchema, request.body);
    await account.changePassword(
      userOf(request),
      body,
      requestContext(request),
      request.identity?.session.lineage,
    );
    return okBody;
  });

  app.post(
    apiPaths.mfaAuthenticateChallenge,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaChallenge> => account.privilegeChallenge(userOf(request)),
  );

  app.post(
    apiPaths.mfaAuthenticateChallengePassword,
    { config: checksSecrets },
    async (request): Promise<MfaChallenge> => {
      const { pass } = parseInput(passwordChallengeRequestSchema, request.body);
      return account.passwordChallenge(userOf(request), pass, requestContext(request));
    },
  );

  // The reference answers with the token as a bare JSON string.
  app.post(apiPaths.privilegeToken, { config: checksSecrets }, async (request, reply) => {
    const body = parseInput(privilegeTokenRequestSchema, request.body ?? {});
    const token = await account.privilegeToken(userOf(request), body, requestContext(request));
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(token));
  });

  app.get(
    apiPaths.mfaDevices,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaDevice[]> => account.listDevices(userOf(request)),
  );

  app.post(
    apiPaths.mfaDevices,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaDevice> => {
      const body = parseInput(addMfaDeviceRequestSchema, request.body);
      return devices.add(userOf(request), body, requestContext(request));
    },
  );

  // The token-scoped twins of the two above (spec §7): the same answers, for the holder of a
  // live privilege token, who is also the one signed in.
  app.get<TokenParams>(
    apiPaths.patterns.mfaTokenDevices,
    { config: { access: 'authenticated' } },
    async (request): Promise<MfaDevice[]> => {
      const user = userOf(request);
      await devices.assertPrivilegeToken(request.params.tokenId, user);
      return account.listDevices(user);
    },
  );

  app.post<TokenParams>(
    apiPaths.patterns.mfaTokenAuthenticateChallenge,
    { config: checksSecrets },
    async (request): Promise<MfaChallenge> => {
      const user = userOf(request);
      await devices.assertPrivilegeToken(request.params.tokenId, user);
      return account.privilegeChallenge(user);
    },
  );

  app.delete<DeviceParams>(
    apiPaths.patterns.mfaTokenDevice,
    { config: { access: 'authenticated' } },
    async (request) => {
      const { tokenId, deviceName } = request.params;
      await devices.remove(
        userOf(request),
        tokenId,
        deviceName,
        requestContext(request),
        request.identity?.session.lineage,
      );
      return okBody;
    },
  );
}
