import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cliDataDir } from '../../cli/cli-harness.testkit.js';
import { createFromFile, getResources, removeResource } from '../../cli/resources.commands.js';
import { ConfigError } from '../../config/config.js';
import { ApiError } from '../../errors.js';
import { presetRoles } from '../rbac/presets.js';
import { RoleSet } from '../rbac/role-set.js';
import { loginRulesTest } from './login-rules-test.command.js';

// `postern create -f`, `get` and `rm` for login rules, on a real SQLite data dir, and who may;
// `postern login_rule test`.

const { run, failure, file } = cliDataDir();

const rule = (name: string, priority: number, logins: string) => `kind: login_rule
version: v1
metadata:
  name: ${name}
spec:
  priority: ${priority}
  traits_map:
    logins:
    - ${logins}
    groups: [external.groups]
`;

describe('postern get, create, rm for login rules', () => {
  it('creates, lists, overwrites with --force and removes them, audited', async () => {
    const at = await file('rules.yaml', `${rule('by-email', 0, "'email.local(external.email)'")}`);
    expect(await run((ctx, print) => createFromFile(ctx, at, {}, print))).toEqual([
      'login rule by-email has been created',
    ]);
    expect(await failure((ctx, print) => createFromFile(ctx, at, {}, print))).toMatch(
      /login rule by-email already exists: pass --force to overwrite/,
    );
    const forced = await file('forced.yaml', rule('by-email', 5, 'external.logins'));
    expect(await run((ctx, print) => createFromFile(ctx, forced, { force: true }, print))).toEqual([
      'login rule by-email has been overwritten',
    ]);

    const yaml = (
      await run((ctx, print) => getResources(ctx, 'login_rules', undefined, {}, print))
    ).join('\n');
    const [doc] = parseAllDocuments(yaml).map((d) => d.toJS());
    expect(doc).toMatchObject({
      kind: 'login_rule',
      metadata: { name: 'by-email' },
      spec: { priority: 5, traits_map: { logins: ['external.logins'] } },
    });
    const table = await run((ctx, print) =>
      getResources(ctx, 'login_rule', 'by-email', { format: 'text' }, print),
    );
    expect(table[1]).toMatch(/^by-email\s+5\s+logins,groups\s+never$/);

    expect(await run((ctx, print) => removeResource(ctx, 'login_rule/by-email', print))).toEqual([
      'login rule by-email has been deleted',
    ]);
    expect(
      await failure((ctx, print) => removeResource(ctx, 'login_rule/by-email', print)),
    ).toMatch(/login rule by-email not found/);
    const codes = await run(async (ctx, print) => {
      const { events } = await ctx.audit.search({
        from: new Date(Date.now() - 60_000),
        to: new Date(Date.now() + 60_000),
        limit: 50,
        order: 'asc',
      });
      for (const event of events.filter((e) => e.event.startsWith('login_rule.'))) {
        print(`${event.code} ${String(event.name)}`);
      }
    });
    expect(codes).toEqual(['TLR00I by-email', 'TLR00I by-email', 'TLR01I by-email']);
  });

  it('refuses a rule it could not apply, with the line of the file', async () => {
    const bad = await file('bad.yaml', rule('broken', 0, "'labels.env'"));
    expect(await failure((ctx, print) => createFromFile(ctx, bad, {}, print))).toMatch(
      /bad.yaml, login_rule at line 1: spec.traits_map.logins.0: unknown name 'labels.env'/,
    );
    const none = await run((ctx, print) => getResources(ctx, 'login_rules', undefined, {}, print));
    expect(none.join('\n')).not.toContain('broken');
  });

  it('lets the editor manage them, and nobody with only the access or auditor preset', async () => {
    const at = await file('one.yaml', rule('one', 0, 'external.logins'));
    await run((ctx, print) => createFromFile(ctx, at, {}, print));
    const roleSet = (name: string) =>
      new RoleSet(
        presetRoles().filter((role) => role.metadata.name === name),
        { name: 'someone', traits: {} },
      );
    await run(async (ctx) => {
      const rules = ctx.access.loginRules;
      const editor = { name: 'ed', roleSet: roleSet('editor') };
      expect((await rules.list(editor)).map((r) => r.metadata.name)).toEqual(['one']);
      for (const preset of ['access', 'auditor']) {
        const actor = { name: 'someone', roleSet: roleSet(preset) };
        expect(await rules.list(actor)).toEqual([]);
        const removed = await rules.remove('one', actor).catch((error: unknown) => error);
        expect(removed).toBeInstanceOf(ApiError);
        expect((removed as ApiError).statusCode).toBe(403);
      }
      await rules.remove('one', editor);
    });
  });
});

describe('postern login_rule test', () => {
  const traits = `email: Alice.Smith@Example.com
groups: [dev-web, ops]
logins: [alice]
`;

  it('prints what the rules of the files make of the traits', async () => {
    const traitsFile = await file('traits.yaml', traits);
    const rules = await file(
      'try.yaml',
      `${rule('lower', 1, "'strings.lower(external.logins)'")}---\n${rule(
        'by-email',
        0,
        "'email.local(external.email)'",
      )}`,
    );
    const lines: string[] = [];
    await loginRulesTest({ traitsFile, resourceFiles: [rules], format: 'yaml' }, (line) =>
      lines.push(line),
    );
    // by-email first (priority 0): logins Alice.Smith; then lower: alice.smith. groups kept.
    expect(parse(lines.join('\n'))).toEqual({
      logins: ['alice.smith'],
      groups: ['dev-web', 'ops'],
    });
  });

  it('with --load-from-cluster adds the stored rules, a file’s standing in for its name', async () => {
    const stored = await file(
      'stored.yaml',
      `${rule('shout', 9, "'strings.upper(external.logins)'")}---\n${rule('by-email', 0, "'external.logins'")}`,
    );
    await run((ctx, print) => createFromFile(ctx, stored, {}, print));
    const traitsFile = await file(
      'traits.json',
      JSON.stringify({ email: ['bob@example.com'], logins: 'bob' }),
    );
    const edited = await file('edited.yaml', rule('by-email', 0, "'email.local(external.email)'"));
    const out = await run(async (ctx, print) =>
      loginRulesTest(
        { traitsFile, resourceFiles: [edited], fromCluster: ctx, format: 'json' },
        print,
      ),
    );
    expect(JSON.parse(out.join('\n'))).toEqual({ logins: ['BOB'] });
  });

  it('says why, as bad input, when a rule cannot apply or nothing is given', async () => {
    const traitsFile = await file('plain.yaml', 'logins: [bob]\n');
    const wrong = await file('wrong.yaml', rule('wrong', 0, "'email.local(external.logins)'"));
    await expect(
      loginRulesTest({ traitsFile, resourceFiles: [wrong], format: 'yaml' }, () => {}),
    ).rejects.toThrow(
      new ConfigError(
        "login rule wrong could not set the trait logins: 'bob' is not an email address",
      ),
    );
    await expect(
      loginRulesTest({ traitsFile, resourceFiles: [], format: 'yaml' }, () => {}),
    ).rejects.toThrow(/no login rules to apply/);
    const list = await file('list.yaml', '- a\n- b\n');
    await expect(
      loginRulesTest({ traitsFile: list, resourceFiles: [wrong], format: 'yaml' }, () => {}),
    ).rejects.toThrow(/expected traits, a map/);
  });
});
