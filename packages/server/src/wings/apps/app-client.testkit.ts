import { apiPaths, createAppSessionResponseSchema } from '@postern/contracts';
import { createPublicKey, verify } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';

/** A request as the test's upstream app saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

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

  /**
   * `POST /sessions/app` as the console sends it (`extra`: an `mfa_response`): the URL of the
   * exchange on the app's origin.
   */
  const launch = async (
    fqdn: string,
    headers: Record<string, string>,
    path = '/',
    extra: object = {},
  ) => {
    const res = await app.server.inject({
      method: 'POST',
      url: apiPaths.appSession,
      payload: { fqdn, path, ...extra },
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

/**
 * The claims of an app identity JWT if it verifies under the key the proxy's JWKS names for it,
 * as an app that trusts Postern checks it; undefined otherwise.
 */
export async function verifiedJwtClaims(
  app: TestApp,
  token: string,
): Promise<Record<string, unknown> | undefined> {
  const [head, body, signature] = token.split('.') as [string, string, string];
  const { keys } = (await app.server.inject({ url: '/.well-known/jwks.json' })).json() as {
    keys: (Record<string, string> & { kid: string })[];
  };
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { kid: string };
  const jwk = keys.find((key) => key.kid === header.kid);
  if (!jwk || signature === undefined) return undefined;
  const valid = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  return valid
    ? (JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>)
    : undefined;
}
