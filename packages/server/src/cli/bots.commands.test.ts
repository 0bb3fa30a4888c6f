import { describe, expect, it } from 'vitest';
import { recordPublicUrl } from '../identity/bootstrap/first-admin.js';
import { BotsStore } from '../identity/bots/bots.store.js';
import {
  botInstancesList,
  botsAdd,
  botsList,
  botsRemove,
  botsToken,
  botsUpdate,
} from './bots.commands.js';
import { cliDataDir } from './cli-harness.testkit.js';

const { state, run, failure } = cliDataDir();

describe('postern bots', () => {
  it('add makes the bot and prints the start command with its single-use token', async () => {
    await recordPublicUrl(state.server, 'https://proxy.example.com:3080');
    let token: string | undefined = '';
    const lines = await run(async (ctx, print) => {
      token = await botsAdd(
        ctx,
        'ci',
        { roles: 'access', logins: 'deploy', tokenTtl: '2h' },
        print,
      );
    });
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[0]).toBe('Bot ci has been created; it acts as user bot-ci with roles access.');
    expect(lines).toContain(
      `  postern bot start --proxy proxy.example.com:3080 --token ${token} --destination /var/lib/postern-bot`,
    );
    const stored = JSON.parse((await state.server.get('/users/bot-ci'))!.value);
    expect(stored.spec).toMatchObject({
      roles: ['access'],
      bot: 'ci',
      traits: { logins: ['deploy'] },
    });
    // The token itself is never stored.
    const tokens = await state.server.list({ prefix: '/bot_tokens/' });
    expect(tokens.items).toHaveLength(1);
    expect(tokens.items[0]!.key).not.toContain(token);
    expect(tokens.items[0]!.value).not.toContain(token);
  });

  it('token adds another, ls lists bots with instances and unused tokens, rm removes it all', async () => {
    await run((ctx, print) => botsToken(ctx, 'ci', {}, print));
    const table = await run((ctx, print) => botsList(ctx, print));
    expect(table[0]).toMatch(
      /^Bot\s+User\s+Roles\s+Joins with\s+Instances\s+Last renewal\s+Unused tokens/,
    );
    expect(table.find((line) => line.startsWith('ci '))).toMatch(
      /^ci\s+bot-ci\s+access\s+token\s+0\s+-\s+2$/,
    );
    // With a name: that bot's running copies, by the ids a bot_instance lock names.
    expect(await run((ctx, print) => botInstancesList(ctx, 'ci', print))).toEqual([
      'No running copy of ci: none has joined, or their certificates ran out over a day ago.',
    ]);
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    const id = '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11';
    await new BotsStore(state.server).createInstance({
      id,
      bot: 'ci',
      generation: 3,
      joinedAt: at(-7200_000),
      renewedAt: at(-600_000),
      certExpires: at(3000_000),
      addr: '127.0.0.1',
    });
    const instances = await run((ctx, print) => botInstancesList(ctx, 'ci', print));
    expect(instances[0]).toMatch(
      /^Instance\s+Generation\s+Joined\s+Last renewal\s+Certificate ends\s+From$/,
    );
    expect(instances[1]).toMatch(
      new RegExp(`^${id}\\s+3\\s+${at(-7200_000)}\\s+.*127\\.0\\.0\\.1$`),
    );
    expect(await failure((ctx, print) => botInstancesList(ctx, 'nobody', print))).toMatch(/nobody/);
    const removed = await run((ctx, print) => botsRemove(ctx, 'ci', print));
    expect(removed[0]).toMatch(/Bot ci has been deleted/);
    expect(await state.server.get('/users/bot-ci')).toBeNull();
    expect((await state.server.list({ prefix: '/bot_tokens/' })).items).toHaveLength(0);
    expect(await run((ctx, print) => botsList(ctx, print))).toEqual([
      'No bots. Create one with: postern bots add NAME --roles ROLE',
    ]);
  });

  it('refuses bad names, unknown roles, unknown bots and a token TTL out of range', async () => {
    expect(
      await failure((ctx, print) => botsAdd(ctx, 'Has Space', { roles: 'access' }, print)),
    ).toMatch(/bot name/);
    expect(await failure((ctx, print) => botsAdd(ctx, 'x', { roles: 'nope' }, print))).toMatch(
      /unknown role/,
    );
    expect(await failure((ctx, print) => botsToken(ctx, 'ghost', {}, print))).toMatch(
      /bot ghost not found/,
    );
    expect(
      await failure((ctx, print) =>
        botsAdd(ctx, 'y', { roles: 'access', tokenTtl: '400h' }, print),
      ),
    ).toMatch(/token ttl/);
    expect(await state.server.get('/users/bot-y')).toBeNull();
  });

  it("add with --oidc-issuer stores the rule and prints the CI job's command instead of a token", async () => {
    let token: string | undefined = 'unset';
    const lines = await run(async (ctx, print) => {
      token = await botsAdd(
        ctx,
        'gha',
        {
          roles: 'access',
          oidcIssuer: 'https://token.actions.githubusercontent.com',
          oidcAudience: 'postern',
          oidcClaims: 'repository=acme/deploy, ref=refs/heads/main',
        },
        print,
      );
    });
    expect(token).toBeUndefined();
    expect(lines).toContain(
      '  postern bot start --proxy proxy.example.com:3080 --bot gha --oidc-token-env POSTERN_ID_TOKEN --destination ./postern-bot --oneshot',
    );
    const listed = await run((ctx, print) => botsList(ctx, print));
    expect(listed.find((line) => line.startsWith('gha '))).toMatch(
      /^gha\s+bot-gha\s+access\s+oidc https:\/\/token\.actions\.githubusercontent\.com\s+0\s+-\s+0$/,
    );
    const rule = JSON.parse((await state.server.get('/bot_join_rules/gha'))!.value);
    expect(rule).toEqual({
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'postern',
      claims: { repository: 'acme/deploy', ref: 'refs/heads/main' },
    });
    expect(
      await failure((ctx, print) =>
        botsAdd(ctx, 'half', { roles: 'access', oidcIssuer: 'https://ci.example.com' }, print),
      ),
    ).toMatch(/go together/);
    expect(
      await failure((ctx, print) =>
        botsAdd(
          ctx,
          'bad',
          {
            roles: 'access',
            oidcIssuer: 'https://ci.example.com',
            oidcAudience: 'a',
            oidcClaims: 'justaname',
          },
          print,
        ),
      ),
    ).toMatch(/not name=value/);
    await run((ctx, print) => botsRemove(ctx, 'gha', print));
    expect(await state.server.get('/bot_join_rules/gha')).toBeNull();
  });

  it('update replaces roles and logins, sets or takes away the ID token rule, and says what is wrong', async () => {
    await run((ctx, print) => botsAdd(ctx, 'upd', { roles: 'access', logins: 'deploy' }, print));
    const user = async () => JSON.parse((await state.server.get('/users/bot-upd'))!.value);
    const updated = await run((ctx, print) =>
      botsUpdate(ctx, 'upd', { roles: 'access,editor', logins: 'ci,deploy' }, print),
    );
    expect(updated).toEqual([
      'Bot upd has been updated: roles access, editor; it joins with join tokens.',
    ]);
    expect((await user()).spec).toMatchObject({
      roles: ['access', 'editor'],
      traits: { logins: ['ci', 'deploy'] },
    });
    const ruled = await run((ctx, print) =>
      botsUpdate(
        ctx,
        'upd',
        {
          oidcIssuer: 'https://gitlab.example.com',
          oidcAudience: 'postern',
          oidcClaims: 'project_path=acme/app',
          oidc: true,
        },
        print,
      ),
    );
    expect(ruled[0]).toMatch(/joins with CI jobs' ID tokens from https:\/\/gitlab.example.com\.$/);
    expect(JSON.parse((await state.server.get('/bot_join_rules/upd'))!.value)).toMatchObject({
      claims: { project_path: 'acme/app' },
    });
    // Roles untouched by a rule change.
    expect((await user()).spec.roles).toEqual(['access', 'editor']);
    await run((ctx, print) => botsUpdate(ctx, 'upd', { oidc: false }, print));
    expect(await state.server.get('/bot_join_rules/upd')).toBeNull();

    expect(await failure((ctx, print) => botsUpdate(ctx, 'upd', { oidc: true }, print))).toMatch(
      /nothing to change/,
    );
    expect(
      await failure((ctx, print) => botsUpdate(ctx, 'ghost', { roles: 'access' }, print)),
    ).toMatch(/bot ghost not found/);
    expect(await failure((ctx, print) => botsUpdate(ctx, 'upd', { roles: 'nope' }, print))).toMatch(
      /unknown role/,
    );
    expect(
      await failure((ctx, print) =>
        botsUpdate(
          ctx,
          'upd',
          {
            oidcIssuer: 'https://a.example.com',
            oidcAudience: 'a',
            oidcClaims: 'x=y',
            oidc: false,
          },
          print,
        ),
      ),
    ).toMatch(/do not go together/);
    expect((await user()).spec.roles).toEqual(['access', 'editor']);
    await run((ctx, print) => botsRemove(ctx, 'upd', print));
  });
});
