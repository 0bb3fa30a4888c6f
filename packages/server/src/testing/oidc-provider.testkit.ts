import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/** A person at the test provider: their password and every claim the ID token may carry. */
export interface TestAccount {
  password: string;
  claims: Record<string, unknown>;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`: the issuer URL a connector names. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by id (the `sub`); tests change claims between sign-ins. */
  accounts: Map<string, TestAccount>;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (the `oidc-provider` package, the certified implementation) on
 * loopback, with one confidential client and accounts whose claims the test controls. Claims go
 * into the ID token (conformIdTokenClaims off) unless `claimsIn: 'userinfo'`; consent is implied, so a sign-in is: the
 * authorization request, this kit's login form, and the redirect back with a code.
 *
 * The login form: `GET /interaction/<uid>` shows it; `POST /interaction/<uid>/login` with
 * `login` and `password` (form-encoded) signs in, or answers 401 to a wrong password.
 */
export async function startTestOidcProvider(options: {
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
  /**
   * `userinfo`: the ID token carries only `sub` and the scopes' claims come from the UserInfo
   * endpoint, as OpenID Connect says for the code flow (and many providers do).
   */
  claimsIn?: 'id_token' | 'userinfo';
}): Promise<TestOidcProvider> {
  const accounts = new Map(Object.entries(options.accounts));
  const clientId = 'postern-test';
  const clientSecret = 'test-client-secret-0123456789abcdef';
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = {
    ...(await exportJWK(privateKey)),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  };

  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'name'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    conformIdTokenClaims: options.claimsIn === 'userinfo',
    ttl: {
      AuthorizationCode: 60,
      Interaction: 600,
      Grant: 600,
      Session: 600,
      IdToken: 600,
      AccessToken: 600,
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account.claims, sub }) };
    },
    // Consent is implied: the test client gets every scope it asks for.
    async loadExistingGrant(ctx: KoaContextWithOIDC) {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || !clientId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(req.url ?? '');
    if (!match) return void handle(req, res);
    void interaction(req, res, match[2] === '/login').catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  async function interaction(req: IncomingMessage, res: ServerResponse, submit: boolean) {
    const details = await provider.interactionDetails(req, res);
    if (!submit) {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form method="post" action="/interaction/${details.uid}/login"><input name="login"><input name="password" type="password"><button>Sign in</button></form>`,
      );
      return;
    }
    const form = new URLSearchParams(await readBody(req));
    const login = form.get('login') ?? '';
    if (accounts.get(login)?.password !== form.get('password')) {
      res.statusCode = 401;
      res.end('wrong login or password');
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: login } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
