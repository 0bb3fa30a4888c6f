import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { signRequest } from '../../ssh/signed-request.js';
import { jsonBody, ProxyClient } from './proxy-client.js';
import type { Profile } from './postern-home.js';
import { currentLogin } from './session-commands.js';

/**
 * The current login's calls to the proxy, each signed with its certificate (the body's bytes
 * included): how a wing's commands (`postern db …`, `postern kube …`) call the proxy as the
 * signed-in user.
 */
export async function signedClient(env: NodeJS.ProcessEnv) {
  return signedClientFor(await currentLogin(env));
}

/** Calls signed with `profile`'s certificate (a bot's, renewing it, when it is not the login's). */
export async function signedClientFor(profile: Profile) {
  const [privateKeyPem, certificateLine] = await Promise.all([
    readFile(profile.key_path, 'utf8'),
    readFile(profile.cert_path, 'utf8').then((text) => text.trim()),
  ]);
  const client = new ProxyClient(new URL(profile.proxy), profile.insecure);
  const sign = (method: string, pathAndQuery: string, body?: unknown) =>
    signRequest({
      method,
      pathAndQuery,
      certificateLine,
      privateKeyPem,
      now: Date.now(),
      body: jsonBody(body),
    });
  return {
    profile,
    client,
    get: <T>(pathAndQuery: string, schema: z.ZodType<T>) =>
      client.get(pathAndQuery, schema, sign('GET', pathAndQuery)),
    post: <T>(path: string, body: unknown, schema: z.ZodType<T>) =>
      client.post(path, body, schema, sign('POST', path, body)),
  };
}
