import {
  clientConfigSchema,
  connectorItemSchema,
  roleIssuesFromMessage,
  secretPlaceholder,
} from '@postern/contracts';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  app = await createTestApp();
  admin = await app.signIn(['editor'], 'root');
});
afterAll(() => app.close());

const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
  headers = admin,
) => app.server.inject({ method, url: `/v1/webapi${url}`, headers, payload: payload as object });

const oidcYaml = (name: string, secret = 'shh-oidc', extra = '') => `kind: oidc
version: v3
metadata:
  name: ${name}
spec:
  display: Example SSO
  issuer_url: https://idp.example.com
  client_id: postern
  client_secret: ${secret}
  claims_to_roles:
  - claim: groups
    value: admins
    roles: [editor]${extra}
`;

/** The YAML with `metadata.revision` set, as a loaded connector's YAML carries it. */
const withRevision = (yaml: string, revision: string) =>
  yaml.replace(/^( {2}name: .*)$/m, `$1\n  revision: '${revision}'`);

const revisionOf = (content: string) => String(parse(content).metadata.revision);

const githubYaml = (name: string) => `kind: github
version: v3
metadata:
  name: ${name}
spec:
  client_id: abc
  client_secret: shh-github
  teams_to_roles:
  - organization: acme
    team: ops
    roles: [access]
`;

const samlYaml = (name: string) => `kind: saml
version: v3
metadata:
  name: ${name}
spec:
  entity_descriptor_url: https://idp.example.com/metadata
  attributes_to_roles:
  - name: groups
    value: '*'
    roles: [access]
  signing_key_pair:
    private_key: secret-key-pem
    cert: cert-pem
`;

const auditCodes = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 })
  ).events.filter((event) => event.code === code);

describe('connectors CRUD', () => {
  it('creates each kind from YAML and never returns a secret', async () => {
    for (const [kind, yaml, secret] of [
      ['oidc', oidcYaml('okta'), 'shh-oidc'],
      ['github', githubYaml('gh'), 'shh-github'],
      ['saml', samlYaml('adfs'), 'secret-key-pem'],
    ] as const) {
      const res = await call('POST', `/${kind}`, { content: yaml });
      expect(res.statusCode, res.body).toBe(200);
      const item = connectorItemSchema.parse(res.json());
      expect(item.id).toMatch(new RegExp(`^${kind}:`));
      expect(item.content).not.toContain(secret);
      expect(parse(item.content).metadata.revision).toMatch(/^\d+$/);
      const shown = parse(item.content).spec;
      expect(shown.client_secret ?? shown.signing_key_pair.private_key).toBe(secretPlaceholder);
      const listed = await call('GET', `/${kind}`);
      expect(listed.body).not.toContain(secret);
      expect(listed.json()).toHaveLength(1);
    }
    expect((await call('GET', '/oidc')).json()[0]).toMatchObject({
      name: 'okta',
      displayName: 'Example SSO',
    });
  });

  it('keeps the stored secret when a PUT sends the placeholder back, and changes it otherwise', async () => {
    const { content } = (await call('GET', '/oidc')).json()[0];
    const edited = content.replace('Example SSO', 'Okta');
    expect((await call('PUT', '/oidc/okta', { content: edited })).statusCode).toBe(200);
    let stored = await app.services.connectors.forLogin('oidc', 'okta');
    expect(stored?.spec).toMatchObject({ display: 'Okta', client_secret: 'shh-oidc' });

    const latest = revisionOf((await call('GET', '/oidc')).json()[0].content);
    const res = await call('PUT', '/oidc/okta', {
      content: withRevision(oidcYaml('okta', 'new-secret'), latest),
    });
    expect(res.statusCode, res.body).toBe(200);
    stored = await app.services.connectors.forLogin('oidc', 'okta');
    expect(stored?.spec).toMatchObject({ client_secret: 'new-secret' });
  });

  it('refuses a PUT without the revision, at the metadata line, and changes nothing', async () => {
    const res = await call('PUT', '/oidc/okta', { content: oidcYaml('okta', 'blind') });
    expect(res.statusCode).toBe(400);
    expect(roleIssuesFromMessage(res.json().error.message)).toEqual([
      expect.objectContaining({ line: 3, path: 'metadata.revision' }),
    ]);
    const stored = await app.services.connectors.forLogin('oidc', 'okta');
    expect(stored?.spec).toMatchObject({ client_secret: 'new-secret' });
  });

  it('gives the second of two concurrent editors a 409 and keeps the first one change', async () => {
    const first = (await call('GET', '/oidc')).json()[0].content as string;
    const second = (await call('GET', '/oidc')).json()[0].content as string;
    expect(parse(first).metadata.revision).toMatch(/^\d+$/);
    const saved = await call('PUT', '/oidc/okta', {
      content: first.replace('client_id: postern', 'client_id: alice'),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const savedRevision = revisionOf(connectorItemSchema.parse(saved.json()).content);
    expect(savedRevision).not.toBe(revisionOf(first));
    expect((await call('GET', '/oidc')).json()[0].content).toContain(
      `revision: '${savedRevision}'`,
    );
    // The placeholder the first editor sent back kept the secret.
    let stored = await app.services.connectors.forLogin('oidc', 'okta');
    expect(stored?.spec).toMatchObject({ client_id: 'alice', client_secret: 'new-secret' });

    const late = await call('PUT', '/oidc/okta', {
      content: second.replace('client_id: postern', 'client_id: bob'),
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toEqual({
      code: 'compare_failed',
      message:
        'the oidc connector okta was changed by someone else since you opened it: reload and reapply your change',
    });
    stored = await app.services.connectors.forLogin('oidc', 'okta');
    expect(stored?.spec).toMatchObject({ client_id: 'alice', client_secret: 'new-secret' });
    expect(stored?.metadata.revision).toBe(savedRevision);
    // The refused save is audited like the accepted one: the same event type, as a warning.
    expect(await auditCodes('TPOS041W')).toEqual([
      expect.objectContaining({
        event: 'oidc.created',
        name: 'okta',
        success: false,
        error: late.json().error.message,
      }),
    ]);
  });

  it('refuses the placeholder as the secret of a new connector', async () => {
    const res = await call('POST', '/oidc', {
      content: oidcYaml('other', `'${secretPlaceholder}'`),
    });
    expect(res.statusCode).toBe(400);
    expect(roleIssuesFromMessage(res.json().error.message)).toEqual([
      expect.objectContaining({ line: 9, path: 'spec.client_secret' }),
    ]);
  });

  it('reports bad YAML and bad fields at their line', async () => {
    const broken = await call('POST', '/oidc', { content: 'kind: oidc\nmetadata: [\n' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.code).toBe('bad_parameter');
    expect(broken.json().error.message).toMatch(/^line \d+: yaml: /);

    const typo = await call('POST', '/oidc', {
      content: oidcYaml('typo', 'x', '\n  claims_to_rolez: []'),
    });
    expect(typo.statusCode).toBe(400);
    expect(roleIssuesFromMessage(typo.json().error.message)).toEqual([
      expect.objectContaining({ line: 14, path: 'spec.claims_to_rolez' }),
    ]);

    const wrongKind = await call('POST', '/github', { content: oidcYaml('x') });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().error.message).toContain('line 1: kind:');
  });

  it('refuses a rename, a duplicate and a missing connector', async () => {
    const rename = await call('PUT', '/oidc/okta', { content: oidcYaml('okta2') });
    expect(rename.statusCode).toBe(400);
    expect(rename.json().error.message).toContain('cannot be renamed');
    expect((await call('POST', '/oidc', { content: oidcYaml('okta') })).statusCode).toBe(409);
    const missing = await call('PUT', '/oidc/nope', {
      content: withRevision(oidcYaml('nope'), '1'),
    });
    expect(missing.statusCode).toBe(404);
    expect((await call('DELETE', '/github/nope')).statusCode).toBe(404);
  });

  it('lists the connectors as login providers in ping and config.js', async () => {
    const ping = await app.server.inject({ method: 'GET', url: '/v1/webapi/ping' });
    expect(ping.json().auth.providers).toEqual([
      {
        name: 'gh',
        displayName: 'gh',
        type: 'github',
        url: '/v1/webapi/github/login/web?connector_id=gh&redirect_url=',
      },
      {
        name: 'okta',
        displayName: 'Example SSO',
        type: 'oidc',
        url: '/v1/webapi/oidc/login/web?connector_id=okta&redirect_url=',
      },
      {
        name: 'adfs',
        displayName: 'adfs',
        type: 'saml',
        url: '/v1/webapi/saml/login/web?connector_id=adfs&redirect_url=',
      },
    ]);
    const script = (await app.server.inject({ method: 'GET', url: '/web/config.js' })).body;
    const config = clientConfigSchema.parse(
      JSON.parse(
        script
          .slice(script.indexOf('=') + 1)
          .trim()
          .replace(/;$/, ''),
      ),
    );
    expect(config.auth.providers.map((provider) => provider.name)).toEqual(['gh', 'okta', 'adfs']);
  });

  it('deletes, and audits creation and deletion per kind', async () => {
    expect((await call('DELETE', '/github/gh')).statusCode).toBe(200);
    expect((await call('GET', '/github')).json()).toEqual([]);
    expect(await auditCodes('T8000I')).toContainEqual(
      expect.objectContaining({ event: 'github.created', user: 'root', name: 'gh' }),
    );
    expect(await auditCodes('T8001I')).toContainEqual(
      expect.objectContaining({ event: 'github.deleted', user: 'root', name: 'gh' }),
    );
    expect(await auditCodes('T8100I')).toHaveLength(4);
    expect(await auditCodes('T8200I')).toHaveLength(1);
  });
});

describe('connector access', () => {
  it('answers 401 without a session and 403 without the authConnectors permission', async () => {
    const noSession = await call('GET', '/oidc', undefined, {});
    expect(noSession.statusCode).toBe(401);
    const user = await app.signIn(['access'], 'bob');
    for (const [method, url] of [
      ['GET', '/oidc'],
      ['POST', '/saml'],
      ['PUT', '/github/x'],
      ['DELETE', '/oidc/okta'],
    ] as const) {
      const res = await call(method, url, { content: githubYaml('x') }, user);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
  });
});
