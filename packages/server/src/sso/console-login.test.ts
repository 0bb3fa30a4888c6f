import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  sshCertsResponseSchema,
  ssoConsolePaths,
  ssoErrorRoutes,
  type ConnectorKind,
} from '@postern/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { TestBrowser, type Page } from '../testing/browser.testkit.js';
import { startGithubFake, type GithubFake } from '../testing/github-fake.testkit.js';
import { startTestOidcProvider, type TestOidcProvider } from '../testing/oidc-provider.testkit.js';
import { startTestSamlIdp, type TestSamlIdp } from '../testing/saml-idp.testkit.js';
import { createOpsRole, describeCertificate, principalsOf } from '../testing/ssh-login.testkit.js';
import { sessionCookieName } from '../http/request-identity.js';
import { parseCertificate } from '../ssh/certificates.js';
import { generateEd25519Key } from '../ssh/keys.js';
import { hostActor } from '../access-control/access/actor.js';

/**
 * `postern login --auth` on the server side, against the real oidc-provider, the GitHub fake and
 * the SAML test IdP: a loopback listener stands in for the CLI, the TestBrowser for the browser.
 */
let app: TestApp;
let oidc: TestOidcProvider;
let github: GithubFake;
let saml: TestSamlIdp;
let cli: Loopback;
const proxyHost = 'proxy.test:3080';
const key = generateEd25519Key();

/** The CLI's listener: records every code the browser brings. */
interface Loopback {
  url: string;
  codes: string[];
  server: Server;
}

async function listen(): Promise<Loopback> {
  const codes: string[] = [];
  const server = createServer((request, response) => {
    const code = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('code');
    if (code) codes.push(code);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('back at the CLI');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/callback`, codes, server };
}

beforeAll(async () => {
  app = await createTestApp();
  await createOpsRole(app);
  cli = await listen();
  oidc = await startTestOidcProvider({
    redirectUris: [`https://${proxyHost}/v1/webapi/oidc/callback`],
    accounts: {
      alice: {
        password: 'alice-pw',
        claims: { email: 'alice@example.com', preferred_username: 'alice', groups: ['ops'] },
      },
      carol: { password: 'carol-pw', claims: { email: 'carol@example.com', groups: [] } },
    },
  });
  github = await startGithubFake({
    redirectUris: [`https://${proxyHost}/v1/webapi/github/callback`],
    signedInAs: 'octocat',
    users: { octocat: { teams: [{ organization: 'acme', team: 'ops' }] } },
  });
  saml = await startTestSamlIdp({
    signedInAs: 'sam',
    // Nothing listens at the proxy's address here: the IdP reads our SP metadata through inject.
    spMetadata: async (entityId) =>
      (await app.server.inject({ method: 'GET', url: new URL(entityId).pathname })).body,
    users: { sam: { attributes: { groups: ['ops'], uid: ['sam'] } } },
  });
  const create = (kind: ConnectorKind, yaml: string) =>
    app.services.connectors.create(kind, yaml, hostActor('root'));
  await create(
    'oidc',
    `kind: oidc
version: v3
metadata: {name: idp}
spec:
  issuer_url: ${oidc.issuer}
  client_id: ${oidc.clientId}
  client_secret: ${oidc.clientSecret}
  scope: [email, profile, groups]
  claims_to_roles: [{claim: groups, value: ops, roles: [ops]}]
  claims_to_traits: [{claim: preferred_username, trait: logins}]
`,
  );
  await create(
    'github',
    `kind: github
version: v3
metadata: {name: gh}
spec:
  client_id: ${github.clientId}
  client_secret: ${github.clientSecret}
  endpoint_url: ${github.endpointUrl}
  api_endpoint_url: ${github.apiEndpointUrl}
  teams_to_roles: [{organization: acme, team: ops, roles: [ops]}]
`,
  );
  await create(
    'saml',
    `kind: saml
version: v3
metadata: {name: corp}
spec:
  entity_descriptor_url: ${saml.metadataUrl}
  attributes_to_roles: [{name: groups, value: ops, roles: [ops]}]
  attributes_to_traits: [{name: uid, trait: logins}]
`,
  );
});
afterAll(async () => {
  await app.close();
  await Promise.all([oidc.close(), github.close(), saml.close()]);
  await new Promise((resolve) => cli.server.close(resolve));
});

let browser: TestBrowser;
beforeEach(() => {
  browser = new TestBrowser(app);
  cli.codes.length = 0;
});

const newSecret = () => randomBytes(32).toString('base64url');
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** The CLI's first call. */
function startLogin(
  kind: ConnectorKind,
  connector: string,
  secret: string,
  overrides: Record<string, unknown> = {},
) {
  return app.server.inject({
    method: 'POST',
    url: ssoConsolePaths.login(kind),
    payload: {
      connector_id: connector,
      redirect_url: cli.url,
      secret_hash: hashOf(secret),
      pub_key: key.publicKey,
      ...overrides,
    },
  });
}

/** The CLI's last call. */
const exchange = (code: string, secret: string) =>
  app.server.inject({
    method: 'POST',
    url: ssoConsolePaths.exchange,
    payload: { code, secret },
  });

/** Starts a login and opens its link; answers the provider's first page. */
async function openLink(kind: ConnectorKind, connector: string, secret: string): Promise<Page> {
  const started = await startLogin(kind, connector, secret);
  expect(started.statusCode, started.body).toBe(200);
  const link = started.json().redirect_url as string;
  expect(link).toMatch(
    new RegExp(`^https://${proxyHost}/v1/webapi/${kind}/login/console/[\\w-]{43}$`),
  );
  return browser.go(link);
}

/** The whole browser part at the OIDC provider; answers the last page the browser got. */
async function oidcSignIn(secret: string, account = 'alice', password = 'alice-pw') {
  const form = await openLink('oidc', 'idp', secret);
  expect(form.url.startsWith(`${oidc.issuer}/interaction/`), form.url).toBe(true);
  return browser.submit(`${form.url}/login`, { login: account, password });
}

const auditOf = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 })
  ).events.filter((event) => event.code === code);

describe('postern login --auth: the server side', () => {
  it('OIDC: the code reaches the loopback, and buys a certificate for the SSO user', async () => {
    const secret = newSecret();
    const last = await oidcSignIn(secret);
    expect(last.url.startsWith(`${cli.url}?code=`), last.url).toBe(true);
    expect(last.body).toBe('back at the CLI');
    expect(cli.codes).toHaveLength(1);
    // No web session: the browser gets nothing but the redirect to the CLI.
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();

    const res = await exchange(cli.codes[0]!, secret);
    expect(res.statusCode, res.body).toBe(200);
    const body = sshCertsResponseSchema.parse(res.json());
    expect(body).toMatchObject({ cluster_name: 'test-cluster', ssh_proxy_addr: 'proxy.test:3023' });
    expect(body.ttl_ms).toBe(2 * 3_600_000);
    const description = await describeCertificate(body.cert);
    expect(description).toContain('Key ID: "alice@example.com"');
    expect(principalsOf(description)).toEqual(['alice', 'root', 'ubuntu']);

    const user = await app.services.users.store.get('alice@example.com');
    expect(user?.user.spec).toMatchObject({ authType: 'sso', roles: ['ops'] });
    // The SSO user outlives the certificate, so ssh/nodes and the SSH listener accept it.
    expect(Date.parse(user!.user.spec.expires!)).toBeGreaterThanOrEqual(
      parseCertificate(body.cert).validBefore.getTime(),
    );
    expect(await auditOf('T1001I')).toContainEqual(
      expect.objectContaining({ user: 'alice@example.com', method: 'oidc', connector: 'idp' }),
    );
    expect(await auditOf('TC000I')).toContainEqual(
      expect.objectContaining({ user: 'alice@example.com', cert_type: 'user' }),
    );

    const again = await exchange(cli.codes[0]!, secret);
    expect(again.statusCode).toBe(403);
    expect(again.json().error.message).toMatch(/unknown, expired or used already/);
  });

  it('refuses a wrong secret, and the code is gone after it', async () => {
    const secret = newSecret();
    await oidcSignIn(secret);
    const issued = (await auditOf('TC000I')).length;
    const wrong = await exchange(cli.codes[0]!, newSecret());
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.message).toMatch(/secret does not match/);
    const right = await exchange(cli.codes[0]!, secret);
    expect(right.statusCode).toBe(403);
    expect((await auditOf('TC000I')).length).toBe(issued);
  });

  it('refuses an expired code', async () => {
    const secret = newSecret();
    await oidcSignIn(secret);
    app.clock.advance(61_000);
    const late = await exchange(cli.codes[0]!, secret);
    expect(late.statusCode).toBe(403);
    expect(late.json().error.message).toMatch(/expired/);
  });

  it('sends an unmapped user to the error page, with no code', async () => {
    const last = await oidcSignIn(newSecret(), 'carol', 'carol-pw');
    expect(new URL(last.url).pathname).toBe(ssoErrorRoutes.unauthorized);
    expect(new URL(last.url).searchParams.get('details')).toMatch(/not mapped to any role/);
    expect(cli.codes).toHaveLength(0);
  });

  it('opens a link once', async () => {
    const started = await startLogin('oidc', 'idp', newSecret());
    const link = started.json().redirect_url as string;
    const first = await browser.go(link, (url) => url.startsWith(oidc.issuer));
    expect(first.url.startsWith(`${oidc.issuer}/auth`)).toBe(true);
    const second = await new TestBrowser(app).go(link);
    expect(new URL(second.url).pathname).toBe(ssoErrorRoutes.login);
    expect(new URL(second.url).searchParams.get('details')).toMatch(/expired or was already used/);
  });

  it('refuses a redirect_url that is not a loopback listener (400)', async () => {
    for (const url of [
      'https://evil.example/callback',
      'http://evil.example:8080/callback',
      'http://127.0.0.1/callback',
      'http://10.0.0.1:8080/callback',
      'http://user@127.0.0.1:8080/callback',
      'javascript:alert(1)',
    ]) {
      const res = await startLogin('oidc', 'idp', newSecret(), { redirect_url: url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.message).toMatch(/^redirect_url: must be http:\/\/127\.0\.0\.1/);
    }
    const localhost = await startLogin('oidc', 'idp', newSecret(), {
      redirect_url: 'http://localhost:8080/callback',
    });
    expect(localhost.statusCode).toBe(200);
  });

  it('refuses an unknown connector (404), a bad key and a bad secret hash (400)', async () => {
    const unknown = await startLogin('oidc', 'nope', newSecret());
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe('there is no OIDC connector named "nope"');
    const wrongKind = await startLogin('github', 'idp', newSecret());
    expect(wrongKind.statusCode).toBe(404);
    const badKey = await startLogin('oidc', 'idp', newSecret(), { pub_key: 'ssh-rsa AAAA' });
    expect(badKey.statusCode).toBe(400);
    const badHash = await startLogin('oidc', 'idp', newSecret(), { secret_hash: 'short' });
    expect(badHash.statusCode).toBe(400);
    const badExchange = await exchange('not-a-code', newSecret());
    expect(badExchange.statusCode).toBe(400);
  });

  it('GitHub: the same hand-over', async () => {
    const secret = newSecret();
    const last = await openLink('github', 'gh', secret);
    expect(last.url.startsWith(`${cli.url}?code=`), last.url).toBe(true);
    const res = await exchange(cli.codes[0]!, secret);
    expect(res.statusCode, res.body).toBe(200);
    const description = await describeCertificate(res.json().cert);
    expect(description).toContain('Key ID: "octocat"');
    expect(principalsOf(description)).toEqual(['octocat', 'root', 'ubuntu']);
  });

  it('SAML: the ACS hands over the same way', async () => {
    const secret = newSecret();
    const page = await openLink('saml', 'corp', secret);
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '';
    const action = /action="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(action).toBe(`https://${proxyHost}/v1/webapi/saml/acs/corp`);
    const last = await browser.submit(action, {
      SAMLResponse: field('SAMLResponse'),
      RelayState: field('RelayState'),
    });
    expect(last.url.startsWith(`${cli.url}?code=`), last.url).toBe(true);
    const res = await exchange(cli.codes[0]!, secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(await describeCertificate(res.json().cert)).toContain('Key ID: "sam"');
  });

  it('is rate limited per address like the other sign-in calls', async () => {
    const limited = await createTestApp({ auth: { login_rate_limit: 2 } });
    try {
      for (const url of [ssoConsolePaths.exchange, ssoConsolePaths.login('oidc')]) {
        const codes: number[] = [];
        for (let i = 0; i < 3; i += 1) {
          const res = await limited.server.inject({ method: 'POST', url, payload: {} });
          codes.push(res.statusCode);
        }
        expect(codes, url).toEqual([400, 400, 429]);
      }
    } finally {
      await limited.close();
    }
  });
});
