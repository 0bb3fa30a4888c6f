import { apiPaths, createAppSessionResponseSchema } from '@postern/contracts';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';

type Ed25519Key = ReturnType<typeof generateEd25519Key>;

export interface AppReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A browser on apps' own origins, against a listening test proxy: requests by `Host` header, the
 * console's launch call, and the exchange that yields the app session cookie.
 */
export function appBrowser(app: TestApp, port: () => number) {
  const get = (host: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<AppReply>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: port(), path, headers: { host, ...headers } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  /** `POST /sessions/app` as the console sends it: the URL of the exchange on the app's origin. */
  const launch = async (fqdn: string, headers: Record<string, string>, path = '/') => {
    const res = await app.server.inject({
      method: 'POST',
      url: apiPaths.appSession,
      payload: { fqdn, path },
      headers: {
        ...headers,
        ...app.csrf.headers,
        cookie: `${headers.cookie}; ${app.csrf.cookie}`,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    return new URL(createAppSessionResponseSchema.parse(res.json()).redirectUrl);
  };

  /** Launches and exchanges: the app session cookie, as the browser then holds it. */
  const signedInCookie = async (fqdn: string, headers: Record<string, string>) => {
    const exchange = await launch(fqdn, headers);
    const res = await get(fqdn, exchange.pathname + exchange.search);
    expect(res.status).toBe(302);
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    expect(cookie).toMatch(/^__Host-postern-app=/);
    return cookie;
  };

  return { get, launch, signedInCookie };
}

/**
 * A POSTERN_HOME as `postern login` leaves it for `user` against the listening test proxy: a key,
 * its certificate from the cluster's CA and the profile. The caller removes the directory.
 */
export async function signedInHome(
  app: TestApp,
  port: number,
  user = 'alice',
  roles: string[] = [],
): Promise<{ home: string; key: Ed25519Key }> {
  const key = generateEd25519Key();
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
  const certificate = app.services.ca.issueUserCertificate({
    user,
    roles,
    logins: [],
    publicKey: key.publicKey,
    ttlMs: 600_000,
  });
  await writeFile(path.join(home, 'key'), key.privateKeyPem, { mode: 0o600 });
  await writeFile(path.join(home, 'key-cert.pub'), `${certificate}\n`);
  await writeFile(
    path.join(home, 'profile.json'),
    JSON.stringify({
      proxy: `http://127.0.0.1:${port}`,
      insecure: false,
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

/** A role that reaches the apps with these labels (`app_labels`), and nothing else. */
export function createAppRole(app: TestApp, name: string, labels: Record<string, string>) {
  return app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name },
      spec: { allow: { app_labels: labels } },
    }),
    hostActor('test'),
  );
}
