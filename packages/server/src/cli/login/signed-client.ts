import { readFile } from 'node:fs/promises';
import { signRequest } from '../../ssh/signed-request.js';
import { ProxyClient } from './proxy-client.js';
import { currentLogin } from './session-commands.js';

/**
 * The current login's proxy client, and headers signing a request with its certificate: how a
 * wing's commands (`postern db …`, `postern kube …`) call the proxy as the signed-in user.
 */
export async function signedClient(env: NodeJS.ProcessEnv) {
  const profile = await currentLogin(env);
  const [privateKeyPem, certificateLine] = await Promise.all([
    readFile(profile.key_path, 'utf8'),
    readFile(profile.cert_path, 'utf8').then((text) => text.trim()),
  ]);
  const client = new ProxyClient(new URL(profile.proxy), profile.insecure);
  const sign = (method: string, pathAndQuery: string) =>
    signRequest({ method, pathAndQuery, certificateLine, privateKeyPem, now: Date.now() });
  return { profile, client, sign };
}
