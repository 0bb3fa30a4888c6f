import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCli } from '../../../main.js';
import { recordPublicUrl } from '../../../identity/bootstrap/first-admin.js';
import { joinTokensPrefix } from '../../../modules/join-tokens/join-tokens.store.js';
import { cliDataDir } from '../../../cli/cli-harness.testkit.js';
import { tokensAdd, tokensList, tokensRemove } from './tokens.commands.js';

const { state, run, failure } = cliDataDir();
beforeAll(() => recordPublicUrl(state.server, 'https://proxy.example:3080'));

const stored = async (token: string) =>
  state.server.get(joinTokensPrefix + createHash('sha256').update(token).digest('hex'));

describe('postern tokens', () => {
  it('add prints the token once with the commands that use it, and stores only its hash', async () => {
    let token = '';
    const lines = await run(async (ctx, print) => {
      token = await tokensAdd(
        ctx,
        { type: 'node', ttl: '2h', labels: 'env=prod, team=web' },
        print,
      );
    });
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(lines).toEqual([
      `The join token: ${token}`,
      expect.stringMatching(/^It expires in 2h, at \S+Z\. It is not shown again\.$/),
      '',
      'To join a host with the Postern agent, run on it:',
      `  postern agent --proxy proxy.example:3080 --token ${token}`,
      '',
      'To make an OpenSSH host join without an agent, run on it:',
      `  curl -fsSk https://proxy.example:3080/scripts/${token}/install-node.sh | sudo env POSTERN_INSECURE_TLS=1 bash`,
    ]);
    const item = await stored(token);
    expect(item?.value).not.toContain(token);
    expect(JSON.parse(item!.value).spec).toMatchObject({
      roles: ['Node'],
      suggestedLabels: { env: ['prod'], team: ['web'] },
    });
    expect(item!.expires!.getTime() - Date.now()).toBeGreaterThan(119 * 60_000);
  });

  it('add --type app prints the install-app.sh line to fill in', async () => {
    let token = '';
    const lines = await run(async (ctx, print) => {
      token = await tokensAdd(ctx, { type: 'app' }, print);
    });
    expect(lines.slice(-3)).toEqual([
      '',
      'To serve an app from a host that reaches it (with postern installed there), run on it:',
      `  curl -fsSk 'https://proxy.example:3080/scripts/${token}/install-app.sh?name=NAME&uri=URI' | sudo env POSTERN_INSECURE_TLS=1 bash`,
    ]);
    expect(lines.join('\n')).not.toContain('install-node.sh');
  });

  it('add --type db prints the install-database.sh line to fill in', async () => {
    let token = '';
    const lines = await run(async (ctx, print) => {
      token = await tokensAdd(ctx, { type: 'db' }, print);
    });
    expect(lines.slice(-4)).toEqual([
      '',
      'To serve a database from a host that reaches it (with postern installed there), run on it:',
      `  curl -fsSk 'https://proxy.example:3080/scripts/${token}/install-database.sh?name=NAME&uri=URI' | sudo env POSTERN_INSECURE_TLS=1 bash`,
      '  (URI: postgres://HOST:PORT or mysql://HOST:PORT, URL-encoded if it has ?sslmode=…)',
    ]);
    expect(lines.join('\n')).not.toContain('install-app.sh');
  });

  it('add --type trusted_cluster prints the resource a leaf creates, and no agent command', async () => {
    let token = '';
    const lines = await run(async (ctx, print) => {
      token = await tokensAdd(ctx, { type: 'trusted_cluster' }, print);
    });
    const text = lines.join('\n');
    expect(text).not.toContain('postern agent');
    expect(text).toContain('To make a leaf cluster trust this one');
    expect(text).toMatch(
      new RegExp(
        `kind: trusted_cluster[\\s\\S]*token: ${token}\\n\\s+web_proxy_addr: proxy.example:3080`,
      ),
    );
    const item = await stored(token);
    expect(JSON.parse(item!.value).spec.roles).toEqual(['Trusted_cluster']);
  });

  it('ls masks tokens; rm takes a token or its id', async () => {
    const tokens: string[] = [];
    await run(async (ctx, print) => {
      tokens.push(await tokensAdd(ctx, { type: 'node' }, print));
      tokens.push(await tokensAdd(ctx, { type: 'node,app', labels: 'k=v' }, print));
    });
    const listed = await run((ctx, print) => tokensList(ctx, print));
    expect(listed[0]).toMatch(/^ID\s+TOKEN\s+ROLES\s+EXPIRES\s+LABELS$/);
    const text = listed.join('\n');
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(text).toContain(`${'*'.repeat(28)}${token.slice(-4)}`);
    }
    const row = listed.find((line) => line.includes(tokens[1]!.slice(-4)))!;
    expect(row).toMatch(/ Node,App +\S+ +k=v$/);
    const id = row.split(/\s+/)[0]!;
    expect(id).toBe(createHash('sha256').update(tokens[1]!).digest('hex').slice(0, 16));

    expect(await run((ctx, print) => tokensRemove(ctx, id, print))).toEqual([
      `Join token ${id} has been deleted.`,
    ]);
    expect(await stored(tokens[1]!)).toBeNull();
    await run((ctx, print) => tokensRemove(ctx, tokens[0]!, print));
    expect(await stored(tokens[0]!)).toBeNull();
    expect(await failure((ctx, print) => tokensRemove(ctx, tokens[0]!, print))).toMatch(
      /no such join token/,
    );
  });

  it('refuses a bad type, TTL or label', async () => {
    const add = (options: { type: string; ttl?: string; labels?: string }) =>
      failure((ctx, print) => tokensAdd(ctx, options, print));
    expect(await add({ type: 'robot' })).toMatch(/^--type: expected node, app/);
    expect(await add({ type: '' })).toMatch(/--type needs a value/);
    expect(await add({ type: 'node', ttl: 'soon' })).toMatch(/--ttl must be a duration/);
    expect(await add({ type: 'node', ttl: '0s' })).toMatch(/^ttl: expected more than 0/);
    expect(await add({ type: 'node', ttl: '999h' })).toMatch(/at most 720h/);
    expect(await add({ type: 'node', labels: 'novalue' })).toMatch(
      /^--labels: expected name=value/,
    );
    expect(await add({ type: 'node', labels: 'bad name=x' })).toMatch(/^--labels/);
  });

  it('wires the commands into the binary', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const cli = ['node', 'postern', 'tokens'];
      await buildCli().parseAsync([...cli, 'add', '--type', 'node', '--data-dir', state.dir]);
      const token = /^The join token: (\w+)$/.exec(String(log.mock.calls[0]?.[0]))![1]!;
      log.mockClear();
      await buildCli().parseAsync([...cli, 'ls', '--data-dir', state.dir]);
      expect(log.mock.calls.flat().join('\n')).toContain(token.slice(-4));
      await buildCli().parseAsync([...cli, 'rm', token, '--data-dir', state.dir]);
      expect(await stored(token)).toBeNull();
    } finally {
      log.mockRestore();
    }
  });
});
