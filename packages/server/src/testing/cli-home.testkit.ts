import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateEd25519Key } from '../ssh/keys.js';
import type { TestApp } from './app-harness.testkit.js';

type Ed25519Key = ReturnType<typeof generateEd25519Key>;

/**
 * A POSTERN_HOME as `postern login` leaves it for `user` against the listening test proxy: a key,
 * its certificate from the cluster's CA and the profile. The caller removes the directory.
 */
export async function signedInHome(
  app: TestApp,
  port: number,
  user = 'alice',
  roles: string[] = [],
  /**
   * `tls`: the proxy over TLS (a test app with `https`), its certificate unchecked as with
   * --insecure. `accessRequests`: the certificate assumes them, as `postern request assume` does.
   * `extensions`: more of the certificate's extensions (a bot's instance, say).
   */
  {
    tls = false,
    accessRequests,
    extensions,
  }: { tls?: boolean; accessRequests?: string[]; extensions?: Record<string, string> } = {},
): Promise<{ home: string; key: Ed25519Key }> {
  const key = generateEd25519Key();
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
  const certificate = app.services.ca.issueUserCertificate({
    user,
    roles,
    logins: [],
    publicKey: key.publicKey,
    ttlMs: 600_000,
    ...(accessRequests ? { accessRequests } : {}),
    ...(extensions ? { extraExtensions: extensions } : {}),
  });
  await writeFile(path.join(home, 'key'), key.privateKeyPem, { mode: 0o600 });
  await writeFile(path.join(home, 'key-cert.pub'), `${certificate}\n`);
  await writeFile(
    path.join(home, 'profile.json'),
    JSON.stringify({
      proxy: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
      insecure: tls,
      user,
      cluster: app.config.clusterName,
      ssh_proxy_addr: '127.0.0.1:3023',
      expires: new Date(Date.now() + 600_000).toISOString(),
      key_path: path.join(home, 'key'),
      cert_path: path.join(home, 'key-cert.pub'),
    }),
  );
  return { home, key };
}
