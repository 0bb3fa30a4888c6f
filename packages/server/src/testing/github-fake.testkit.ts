import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A person at the fake GitHub and their teams (`org` login, team slug). */
export interface FakeGithubUser {
  teams: { organization: string; team: string }[];
}

export interface GithubFake {
  /** The connector's `endpoint_url` (`http://127.0.0.1:<port>`). */
  endpointUrl: string;
  /** The connector's `api_endpoint_url` (`<endpointUrl>/api/v3`, as on GitHub Enterprise Server). */
  apiEndpointUrl: string;
  clientId: string;
  clientSecret: string;
  users: Map<string, FakeGithubUser>;
  /** Who is signed in at the fake: its authorize page approves at once, as GitHub does for an app already authorized. */
  signedInAs: string;
  /** Teams per page of `/user/teams`, small so tests see the Link header's pagination. */
  teamsPerPage: number;
  close(): Promise<void>;
}

/**
 * FAKE: GitHub cannot run here. This stand-in speaks the shapes Postern relies on: the OAuth web
 * flow (`/login/oauth/authorize` redirecting back with `code` and `state`, `/login/oauth/
 * access_token` answering JSON, errors with HTTP 200 as GitHub does, PKCE S256 checked when a
 * challenge was sent), and the REST calls `/user` and `/user/teams` with bearer tokens and Link
 * pagination. It is not GitHub: no scopes, no rate limits, no organisation access restrictions.
 */
export async function startGithubFake(options: {
  redirectUris: string[];
  users: Record<string, FakeGithubUser>;
  signedInAs: string;
}): Promise<GithubFake> {
  const clientId = 'Iv1.fakeclientid';
  const clientSecret = 'fake-github-secret-0123456789';
  const codes = new Map<string, { login: string; redirectUri: string; challenge?: string }>();
  const tokens = new Map<string, string>();

  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const endpointUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const fake: GithubFake = {
    endpointUrl,
    apiEndpointUrl: `${endpointUrl}/api/v3`,
    clientId,
    clientSecret,
    users: new Map(Object.entries(options.users)),
    signedInAs: options.signedInAs,
    teamsPerPage: 2,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void route(req, res).catch((error: unknown) => json(res, 500, { message: String(error) }));
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', endpointUrl);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (
        url.searchParams.get('client_id') !== clientId ||
        !options.redirectUris.includes(redirectUri)
      ) {
        return json(res, 400, {
          message: 'The redirect_uri is not associated with this application.',
        });
      }
      const code = randomBytes(10).toString('hex');
      const challenge = url.searchParams.get('code_challenge') ?? undefined;
      codes.set(code, { login: fake.signedInAs, redirectUri, challenge });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const pkceOk =
        !grant?.challenge ||
        createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
        return json(res, 200, { error: 'incorrect_client_credentials' });
      }
      if (!grant || grant.redirectUri !== form.get('redirect_uri') || !pkceOk) {
        return json(res, 200, { error: 'bad_verification_code' });
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.login);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:org' });
    }
    const login = tokens.get((req.headers.authorization ?? '').replace(/^(Bearer|token) /, ''));
    if (url.pathname.startsWith('/api/v3/') && !login) {
      return json(res, 401, { message: 'Bad credentials' });
    }
    if (req.method === 'GET' && url.pathname === '/api/v3/user' && login) {
      return json(res, 200, { login, id: 1, type: 'User' });
    }
    if (req.method === 'GET' && url.pathname === '/api/v3/user/teams' && login) {
      const teams = fake.users.get(login)?.teams ?? [];
      const page = Number(url.searchParams.get('page') ?? '1');
      const size = fake.teamsPerPage;
      const slice = teams.slice((page - 1) * size, page * size).map((t) => ({
        slug: t.team,
        name: t.team,
        organization: { login: t.organization },
      }));
      const headers: Record<string, string> = {};
      if (page * size < teams.length) {
        headers.link = `<${fake.apiEndpointUrl}/user/teams?page=${page + 1}>; rel="next"`;
      }
      return json(res, 200, slice, headers);
    }
    return json(res, 404, { message: 'Not Found' });
  }

  return fake;
}

function json(res: ServerResponse, status: number, body: unknown, headers = {}) {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
