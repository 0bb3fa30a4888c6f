import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cliDataDir } from './cli-harness.testkit.js';
import { createFromFile, getResources, removeResource } from './resources.commands.js';

const { state, run, failure, file } = cliDataDir();

const github = (secret: string, display = 'GitHub') => `kind: github
version: v3
metadata:
  name: gh
spec:
  display: ${display}
  client_id: abc
  client_secret: ${secret}
  redirect_url: https://proxy.example.com/v1/webapi/github/callback
  teams_to_roles:
  - organization: acme
    team: ops
    roles: [access]
`;

const oidc = `kind: oidc
version: v3
metadata:
  name: okta
spec:
  issuer_url: https://acme.okta.com
  client_id: postern
  client_secret: oidc-secret
  claims_to_roles:
  - claim: groups
    value: admins
    roles: [editor]
`;

const storedSecret = async (kind: string, name: string) =>
  JSON.parse((await state.server.get(`/connectors/${kind}/${name}`))!.value).spec.client_secret;

describe('postern get, create, rm for connectors', () => {
  it('creates connectors from YAML, the secret stored and printed as the placeholder', async () => {
    const at = await file('sso.yaml', `${github('gh-secret-1')}---\n${oidc}`);
    expect(await run((ctx, print) => createFromFile(ctx, at, {}, print))).toEqual([
      'github connector gh has been created',
      'oidc connector okta has been created',
    ]);
    expect(await storedSecret('github', 'gh')).toBe('gh-secret-1');

    const yaml = (
      await run((ctx, print) => getResources(ctx, 'connectors', undefined, {}, print))
    ).join('\n');
    const docs = parseAllDocuments(yaml).map((doc) => doc.toJS());
    expect(docs.map((doc) => [doc.kind, doc.metadata.name])).toEqual([
      ['oidc', 'okta'],
      ['github', 'gh'],
    ]);
    expect(yaml).not.toContain('gh-secret-1');
    expect(yaml).not.toContain('oidc-secret');
    expect(docs.every((doc) => doc.spec.client_secret === '**********')).toBe(true);

    const table = await run((ctx, print) =>
      getResources(ctx, 'github', undefined, { format: 'text' }, print),
    );
    expect(table[0]).toMatch(/^NAME\s+KIND\s+DISPLAY$/);
    expect(table[1]).toMatch(/^gh\s+github\s+GitHub$/);
    const json = await run((ctx, print) =>
      getResources(ctx, 'oidc', 'okta', { format: 'json' }, print),
    );
    expect(JSON.parse(json.join('\n'))[0].spec.client_secret).toBe('**********');
  });

  it('refuses an existing connector without --force; with it, the placeholder keeps the secret', async () => {
    const at = await file('gh.yaml', github("'**********'", 'GitHub (acme)'));
    expect(await failure((ctx, print) => createFromFile(ctx, at, {}, print))).toMatch(
      /github connector gh already exists: pass --force/,
    );
    expect(await run((ctx, print) => createFromFile(ctx, at, { force: true }, print))).toEqual([
      'github connector gh has been overwritten',
    ]);
    expect(await storedSecret('github', 'gh')).toBe('gh-secret-1');
    const shown = await run((ctx, print) => getResources(ctx, 'github', 'gh', {}, print));
    expect(shown.join('\n')).toContain('display: GitHub (acme)');
  });

  it('prints the revision, and --force applies a stale export over a later change', async () => {
    const exported = (await run((ctx, print) => getResources(ctx, 'github', 'gh', {}, print))).join(
      '\n',
    );
    const revision = parseAllDocuments(exported)[0]!.toJS().metadata.revision;
    expect(revision).toMatch(/^\d+$/);
    // Someone changes the connector after the export …
    const later = await file('later.yaml', github("'**********'", 'GitHub (later)'));
    await run((ctx, print) => createFromFile(ctx, later, { force: true }, print));
    // … and the stale export, its revision now behind, still overwrites with --force.
    const stale = await file('stale.yaml', exported.replace('GitHub (acme)', 'GitHub (stale)'));
    expect(await run((ctx, print) => createFromFile(ctx, stale, { force: true }, print))).toEqual([
      'github connector gh has been overwritten',
    ]);
    const stored = JSON.parse((await state.server.get('/connectors/github/gh'))!.value);
    expect(stored.spec).toMatchObject({ display: 'GitHub (stale)', client_secret: 'gh-secret-1' });
    // The revision is the backend's, never part of the stored value.
    expect(stored.metadata).toEqual({ name: 'gh' });
  });

  it('refuses a new connector with the placeholder as its secret, and a bad one at its line', async () => {
    const placeholder = await file(
      'new.yaml',
      github("'**********'").replace('name: gh', 'name: gh2'),
    );
    expect(await failure((ctx, print) => createFromFile(ctx, placeholder, {}, print))).toMatch(
      /client_secret/,
    );
    const bad = await file(
      'bad.yaml',
      `${oidc.replace('name: okta', 'name: okta2')}  nonsense: 1\n`,
    );
    expect(await failure((ctx, print) => createFromFile(ctx, bad, {}, print))).toMatch(
      /bad\.yaml.*line \d+.*nonsense/,
    );
    expect(await state.server.get('/connectors/oidc/okta2')).toBeNull();
  });

  it('rm oidc/NAME deletes it; an unknown one is named', async () => {
    expect(await run((ctx, print) => removeResource(ctx, 'oidc/okta', print))).toEqual([
      'oidc connector okta has been deleted',
    ]);
    expect(await state.server.get('/connectors/oidc/okta')).toBeNull();
    expect(await failure((ctx, print) => removeResource(ctx, 'saml/none', print))).toMatch(/none/);
    expect(await failure((ctx, print) => getResources(ctx, 'oidc', 'okta', {}, print))).toBe(
      'connector okta not found',
    );
  });
});
