import { generateEd25519Key } from '../ssh/keys.js';
import { signRequest } from '../ssh/signed-request.js';
import type { TestApp } from './app-harness.testkit.js';

const key = generateEd25519Key();

/**
 * The headers `postern` sends after `postern login` as `user`: the request signed with a key
 * whose certificate (a minute long, on the app's clock) the app's user CA issued; `body` is the
 * exact JSON text sent, when there is one.
 */
export function signedHeaders(
  app: TestApp,
  user: string,
  { method = 'GET', path, body }: { method?: string; path: string; body?: string },
): Record<string, string> {
  return signRequest({
    method,
    pathAndQuery: path,
    certificateLine: app.services.ca.issueUserCertificate({
      user,
      roles: [],
      logins: [],
      publicKey: key.publicKey,
      ttlMs: 60_000,
      now: new Date(app.clock.now()),
    }),
    privateKeyPem: key.privateKeyPem,
    now: app.clock.now(),
    ...(body === undefined ? {} : { body }),
  });
}
