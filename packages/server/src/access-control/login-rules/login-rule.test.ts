import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyLoginRules, LoginRuleError, loginRuleSchema, type LoginRule } from './login-rule.js';

const now = new Date('2026-11-29T12:00:00Z');

/** A rule from its YAML spec lines, checked as `create -f` checks it. */
function rule(name: string, spec: object, metadata: object = {}): LoginRule {
  return loginRuleSchema.parse({
    kind: 'login_rule',
    version: 'v1',
    metadata: { name, ...metadata },
    spec,
  });
}

const problems = (doc: unknown) => {
  const result = loginRuleSchema.safeParse(doc);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('login rule documents', () => {
  it('reads the reference shape, priority 0 by default', () => {
    const parsed = loginRuleSchema.parse(
      parse(`kind: login_rule
version: v1
metadata:
  name: logins-from-email
spec:
  traits_map:
    logins: [external.logins, 'strings.lower(email.local(external.email))']
    groups: ['external["groups"]']
`),
    );
    expect(parsed.spec).toEqual({
      priority: 0,
      traits_map: {
        logins: ['external.logins', 'strings.lower(email.local(external.email))'],
        groups: ['external["groups"]'],
      },
    });
  });

  it('refuses what it cannot apply, naming the trait, the expression and where', () => {
    const doc = (traits_map: object, extra: object = {}) => ({
      kind: 'login_rule',
      version: 'v1',
      metadata: { name: 'r' },
      spec: { traits_map, ...extra },
    });
    expect(problems(doc({ logins: ['labels.env'] }))).toEqual([
      "spec.traits_map.logins.0: unknown name 'labels.env': use external.NAME, a string or a function at column 1",
    ]);
    expect(problems(doc({ logins: ['contains(external.groups, "x")'] }))[0]).toMatch(
      /spec.traits_map.logins.0: gives a condition, not values/,
    );
    expect(problems(doc({ logins: ['email.local(external.email'] }))[0]).toMatch(
      /^spec.traits_map.logins.0: expected '\)' at the end of the expression/,
    );
    expect(problems(doc({ logins: ['labels_matching("^a")'] }))[0]).toMatch(
      /unknown function 'labels_matching'/,
    );
    expect(problems(doc({ logins: [] }))).toEqual([
      'spec.traits_map.logins: give at least one expression',
    ]);
    expect(
      problems(doc({ logins: ['external.logins'] }, { traits_expression: 'external' })),
    ).toEqual(['spec.traits_expression: is not supported: write the rule as traits_map']);
    expect(problems(doc({ logins: ['external.logins'] }, { priority: 1.5 }))).toEqual([
      'spec.priority: must be a whole number',
    ]);
    expect(
      problems({ ...doc({ logins: ['external.logins'] }), metadata: { name: 'A B' } })[0],
    ).toMatch(/^metadata.name: use 1-63/);
  });
});

describe('applying login rules', () => {
  const provider = {
    logins: ['Alice.Admin'],
    email: ['Alice.Smith@Example.com'],
    groups: ['dev-web', 'dev-db', 'ops'],
  };

  it('gives exactly the traits of its map, each the union of its expressions', () => {
    const out = applyLoginRules(
      [
        rule('emails', {
          traits_map: {
            logins: ['external.logins', 'strings.lower(email.local(external.email))'],
            kubernetes_groups: ['regexp.replace(external.groups, "^dev-(.*)$", "$1")', '"viewers"'],
            teams: ['union(external.groups, set("everyone"))'],
          },
        }),
      ],
      provider,
      now,
    );
    expect(out).toEqual({
      logins: ['Alice.Admin', 'alice.smith'],
      kubernetes_groups: ['web', 'db', 'viewers'],
      teams: ['dev-web', 'dev-db', 'ops', 'everyone'],
    });
    // `email` and `groups` were not in the map: the rule's traits are the whole set.
    expect(out).not.toHaveProperty('email');
  });

  it('runs by priority then name, each rule reading what the one before gave', () => {
    const rules = [
      rule('b-lower', { priority: 5, traits_map: { logins: ['strings.lower(external.logins)'] } }),
      rule('a-upper', { priority: 5, traits_map: { logins: ['strings.upper(external.logins)'] } }),
      rule('first', {
        priority: -1,
        traits_map: { logins: ['email.local(external.email)'], kept: ['external.groups'] },
      }),
    ];
    // first: logins = Alice.Smith; a-upper: ALICE.SMITH; b-lower: alice.smith (kept is dropped).
    expect(applyLoginRules(rules, provider, now)).toEqual({ logins: ['alice.smith'] });
  });

  it('leaves out a trait with no values, and a rule past its expiry', () => {
    const rules = [
      rule('mapped', {
        traits_map: { logins: ['external.logins'], missing: ['external.nothing'] },
      }),
      rule(
        'expired',
        { priority: 9, traits_map: { logins: ['"nobody"'] } },
        { expires: '2026-11-29T11:59:59Z' },
      ),
    ];
    expect(applyLoginRules(rules, provider, now)).toEqual({ logins: ['Alice.Admin'] });
    expect(applyLoginRules([], provider, now)).toEqual(provider);
  });

  it('refuses, naming the rule and the trait, when an expression cannot apply', () => {
    const rules = [rule('by-email', { traits_map: { logins: ['email.local(external.logins)'] } })];
    const error = (() => {
      try {
        applyLoginRules(rules, provider, now);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(LoginRuleError);
    expect((error as Error).message).toBe(
      "login rule by-email could not set the trait logins: 'Alice.Admin' is not an email address",
    );
  });
});
