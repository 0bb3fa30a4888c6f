import { describe, expect, it } from 'vitest';
import { roleWidenings } from '../roles/widening.js';
import {
  maxExpressionDepth,
  maxExpressionLength,
  parseLabelExpression,
} from './label-expression.js';
import { RoleSet, type RoleSetUser } from './role-set.js';
import { roleSchema, type Role } from './role.schema.js';
import { RoleValidationError, parseRoleYaml } from './role.yaml.js';

const role = (name: string, allow: object = {}, deny: object = {}): Role =>
  roleSchema.parse({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow, deny } });

const alice: RoleSetUser = {
  name: 'alice',
  traits: { logins: ['alice', 'ops'], db_users: ['reader'] },
  externalTraits: {
    email: ['alice@example.com'],
    team: ['payments', 'search'],
    groups: ['env-dev', 'env-qa', 'admins'],
    projects: ['apollo', 'gemini'],
    username: ['Alice'],
  },
};

/** Whether a role allowing nodes by this expression alone lets alice reach the node. */
const allows = (expression: string, labels: Record<string, string>, user = alice) =>
  new RoleSet([role('r', { node_labels_expression: expression, logins: ['x'] })], user).canAccess(
    'node',
    { labels },
  );

describe('label expressions: verdicts', () => {
  const prod = { env: 'prod', team: 'payments', owner: 'alice', region: 'eu-west-1' };
  const dev = { env: 'dev', team: 'search', 'project-a': 'apollo', 'project-b': 'zeus' };
  const bare = {};
  const table: Array<[expression: string, labels: Record<string, string>, verdict: boolean]> = [
    ['labels["env"] == "prod"', prod, true],
    ['labels.env == "prod"', prod, true],
    ['labels[`env`] == "prod"', prod, true],
    ['labels["env"] == "prod"', dev, false],
    ['labels["env"] != "prod"', dev, true],
    // A missing label is absent: equal to nothing, not even "", and so unequal to anything.
    ['labels["env"] == "prod"', bare, false],
    ['labels["env"] == ""', bare, false],
    ['labels["env"] != "prod"', bare, true],
    ['labels["a"] == labels["b"]', bare, false],
    ['regexp.match(labels["env"], "*")', bare, false],
    ['regexp.match(labels["env"], "*")', dev, true],
    // Traits, internal and external alike, through user.spec.traits.
    ['contains(user.spec.traits["team"], labels["team"])', prod, true],
    ['contains(user.spec.traits.team, labels.team)', dev, true],
    ['contains(user.spec.traits["team"], labels["team"])', bare, false],
    ['contains(user.spec.traits["missing"], labels["team"])', prod, false],
    ['contains(user.spec.traits["logins"], labels["owner"])', prod, true],
    ['contains(user.spec.traits["logins"], "ops")', bare, true],
    ['contains(email.local(user.spec.traits["email"]), labels["owner"])', prod, true],
    ['contains(strings.lower(user.spec.traits["username"]), labels["owner"])', prod, true],
    ['contains(strings.upper(labels["owner"]), "ALICE")', prod, true],
    [
      'contains(regexp.replace(user.spec.traits["groups"], "^env-(.*)$", "$1"), labels["env"])',
      dev,
      true,
    ],
    [
      'contains(regexp.replace(user.spec.traits["groups"], "^env-(.*)$", "$1"), labels["env"])',
      prod,
      false,
    ],
    // Patterns: globs, ^regex$, literals.
    ['regexp.match(labels["region"], "eu-*")', prod, true],
    ['regexp.match(labels["region"], "^eu-(west|north)-\\d+$")', prod, true],
    ['regexp.match(labels["region"], "^us-.*$")', prod, false],
    ['!regexp.match(user.spec.traits["groups"], "contractor*")', prod, true],
    ['hasPrefix(labels["region"], "eu-")', prod, true],
    ['hasSuffix(labels["region"], "-2")', prod, false],
    ['hasPrefix(labels["region"], "eu-")', bare, false],
    // Sets.
    ['contains_any(user.spec.traits["projects"], labels_matching("project-*"))', dev, true],
    ['contains_all(user.spec.traits["projects"], labels_matching("project-*"))', dev, false],
    ['contains_all(user.spec.traits["projects"], labels_matching("^project-a$"))', dev, true],
    // An empty list contains nothing at all: contains_all of nothing is false.
    ['contains_all(user.spec.traits["projects"], labels_matching("project-*"))', prod, false],
    ['contains_any(set("prod", "staging"), labels["env"])', prod, true],
    ['contains(set("prod", "staging"), labels["env"])', dev, false],
    ['labels["env"] == set("prod")', prod, true],
    ['set() == set()', bare, false],
    ['contains(labels_matching("^(env|team)$"), "search")', dev, true],
    // ifelse, true, false.
    [
      'ifelse(labels["env"] == "prod", contains(user.spec.traits["team"], labels["team"]), true)',
      dev,
      true,
    ],
    [
      'ifelse(labels["env"] == "prod", contains(user.spec.traits["team"], "nope"), true)',
      prod,
      false,
    ],
    ['contains(ifelse(labels.env == "dev", set("a"), set("b")), "a")', dev, true],
    ['true', bare, true],
    ['!true', bare, false],
    // Nested boolean logic and precedence (&& before ||, ! before ==).
    ['labels.env == "dev" || labels.env == "prod" && labels.team == "search"', prod, false],
    ['(labels.env == "dev" || labels.env == "prod") && labels.team == "payments"', prod, true],
    ['!(labels.env == "dev") && !(labels.env == "qa" || labels.team == "search")', prod, true],
    ['!(labels.env == "dev") && !(labels.env == "qa" || labels.team == "search")', dev, false],
  ];
  it.each(table)('%s on %j is %s', (expression, labels, verdict) => {
    expect(allows(expression, labels)).toBe(verdict);
  });

  it('never allows when evaluation fails, and then always denies', () => {
    const notEmail: RoleSetUser = { name: 'bob', externalTraits: { email: ['bob'] } };
    const expression = 'contains(email.local(user.spec.traits["email"]), labels["owner"])';
    expect(allows(expression, { owner: 'bob' }, notEmail)).toBe(false);
    const denied = new RoleSet(
      [
        role('a', { node_labels: { '*': '*' }, logins: ['x'] }),
        role('d', {}, { node_labels_expression: expression }),
      ],
      notEmail,
    );
    expect(denied.canAccess('node', { labels: { owner: 'someone' } })).toBe(false);
  });

  it('allows with the map AND the expression, denies with the map OR the expression', () => {
    const both = RoleSet.from(
      [
        role('r', {
          node_labels: { env: 'prod' },
          node_labels_expression: 'contains(user.spec.traits["team"], labels["team"])',
          logins: ['x'],
        }),
      ],
      alice,
    );
    expect(both.canAccess('node', { labels: { env: 'prod', team: 'payments' } })).toBe(true);
    expect(both.canAccess('node', { labels: { env: 'dev', team: 'payments' } })).toBe(false);
    expect(both.canAccess('node', { labels: { env: 'prod', team: 'hr' } })).toBe(false);

    const denies = RoleSet.from(
      [
        role('all', { node_labels: { '*': '*' }, logins: ['x'] }),
        role(
          'no',
          {},
          { node_labels: { env: 'prod' }, node_labels_expression: 'labels.pci == "yes"' },
        ),
      ],
      alice,
    );
    expect(denies.canAccess('node', { labels: { env: 'dev' } })).toBe(true);
    expect(denies.canAccess('node', { labels: { env: 'prod' } })).toBe(false);
    expect(denies.canAccess('node', { labels: { env: 'dev', pci: 'yes' } })).toBe(false);
  });

  it('names principals per resource: deny logins where the expression matches', () => {
    const set = RoleSet.from(
      [
        role('a', { node_labels_expression: 'true', logins: ['{{internal.logins}}', 'root'] }),
        role('d', {}, { node_labels_expression: 'labels.env == "prod"', logins: ['root'] }),
      ],
      alice,
    );
    expect(set.loginsFor({ labels: { env: 'dev' } })).toEqual(['alice', 'ops', 'root']);
    expect(set.loginsFor({ labels: { env: 'prod' } })).toEqual(['alice', 'ops']);
    // A role that selects nodes only by expression still puts its logins in certificates.
    expect(set.certificateLogins()).toEqual(['alice', 'ops', 'root']);
    expect(set.checkRule('node', 'list')).toBe(true);
  });

  it('applies to every kind: apps, databases, Kubernetes clusters and desktops', () => {
    const set = RoleSet.from(
      [
        role('r', {
          app_labels_expression: 'labels.env == "dev"',
          db_labels_expression: 'labels.env == "dev"',
          db_users: ['{{internal.db_users}}'],
          kubernetes_labels_expression: 'labels.env == "dev"',
          kubernetes_groups: ['viewers'],
          windows_desktop_labels_expression: 'labels.env == "dev"',
          windows_desktop_logins: ['Administrator'],
        }),
      ],
      alice,
    );
    for (const kind of ['app', 'db', 'kube', 'desktop'] as const) {
      expect(set.canAccess(kind, { labels: { env: 'dev' } }), kind).toBe(true);
      expect(set.canAccess(kind, { labels: { env: 'prod' } }), kind).toBe(false);
    }
    expect(set.dbUsersFor({ labels: { env: 'dev' } }).values).toEqual(['reader']);
    expect(set.kubeGroupsFor({ labels: { env: 'prod' } })).toEqual([]);
  });

  it('keeps db_service and group expressions: checked, granting nothing', () => {
    const kept = role('k', {
      db_service_labels_expression: 'labels.env == "dev"',
      group_labels_expression: 'true',
    });
    const set = RoleSet.from([kept], alice);
    expect(set.canAccess('db', { labels: { env: 'dev' } })).toBe(false);
  });
});

describe('label expressions: parsing', () => {
  const errors: Array<[string, string]> = [
    ['labels["env"] == "prod")', "unexpected ')' at column 24"],
    ['contains(user.spec.traits["team"], labels["team"]))', "unexpected ')' at column 51"],
    ['labels["env"] = "prod"', "unexpected '=' at column 15 (did you mean '=='?)"],
    ['labels.env == "prod" & true', "unexpected '&' at column 22 (did you mean '&&'?)"],
    ['labels["env"] == "prod', 'unterminated string at column 18'],
    ['labels["env"]', 'the expression must be a condition (true or false), not a value'],
    ['', 'the expression is empty'],
    ['labels == "x"', 'labels needs a key: labels["env"] or labels.env at column 1'],
    ['labels[env] == "x"', 'the key of labels[…] must be a quoted string at column 8'],
    ['user.name == "x"', "unknown field 'user.name'"],
    ['matches(labels.env, "x")', "unknown function 'matches' (supported: contains, "],
    ['contains(labels.env)', 'contains takes 2 arguments, not 1'],
    [
      'contains(labels.env, user.spec.traits["team"])',
      'argument 2 of contains must be a single value (use contains_any or contains_all for a list), not a list of values',
    ],
    ['regexp.match(labels.env, labels.x)', 'argument 2 of regexp.match must be a quoted string'],
    ['regexp.match(labels.env, "^(prod$")', "invalid regular expression: a missing ')'"],
    ['regexp.match(labels.env, "^(a)\\1$")', 'backreferences are not supported'],
    ['!labels.env', "'!' needs a condition, not a value"],
    ['labels.env && true', "'&&' joins conditions, not a value at column 1"],
    ['true == true', "'==' compares values, not conditions"],
    ['ifelse(true, true, "x")', 'both branches of ifelse must be conditions, or both values'],
    ['labels.env == "a" == "b"', "unexpected '==' at column 19"],
    ['labels.env ==\n  "a" ||\n  )', "unexpected ')' at line 3, column 3 of the expression"],
  ];
  it.each(errors)('%j: %s', (text, message) => {
    expect(() => parseLabelExpression(text)).toThrow(message);
  });

  it('refuses pathological inputs at parse time, quickly', () => {
    const deep = `${'('.repeat(200)}true${')'.repeat(200)}`;
    const nots = `${'!'.repeat(100_000)}true`;
    const calls = `${'contains(set('.repeat(40)}"a"${'), "a")'.repeat(40)}`;
    const long = `labels.env == "${'x'.repeat(maxExpressionLength)}"`;
    const started = performance.now();
    expect(() => parseLabelExpression(deep)).toThrow(
      `nested too deeply (more than ${maxExpressionDepth} levels) at column 33`,
    );
    expect(() => parseLabelExpression(nots)).toThrow(`longer than ${maxExpressionLength}`);
    expect(() => parseLabelExpression(nots.slice(-1000))).toThrow('nested too deeply');
    expect(() => parseLabelExpression(calls)).toThrow('nested too deeply');
    expect(() => parseLabelExpression(long)).toThrow(`longer than ${maxExpressionLength}`);
    expect(() => parseLabelExpression('regexp.match(labels.a, "^a{1000}$")')).toThrow('above 100');
    expect(() => parseLabelExpression(`regexp.match(labels.a, "^${'(a|b)'.repeat(60)}$")`)).toThrow(
      'longer than 256',
    );
    // The famous ones parse (the engine runs them in linear time) and stay quick on long values.
    const evil = parseLabelExpression('regexp.match(labels["v"], "^(a+)+$")');
    expect(evil.text).toContain('(a+)+');
    expect(allows('regexp.match(labels["v"], "^(a|aa)+$")', { v: `${'a'.repeat(50_000)}!` })).toBe(
      false,
    );
    expect(performance.now() - started).toBeLessThan(3000);
    // Within the limits, nesting is fine.
    const ok = `${'('.repeat(maxExpressionDepth - 1)}true${')'.repeat(maxExpressionDepth - 1)}`;
    expect(parseLabelExpression(ok).text).toBe(ok);
  });
});

describe('label expressions in role YAML', () => {
  const yaml = (lines: string[]) =>
    ['kind: role', 'version: v7', 'metadata:', '  name: r', 'spec:', ...lines, ''].join('\n');
  const issuesOf = (text: string) => {
    try {
      parseRoleYaml(text);
    } catch (error) {
      if (error instanceof RoleValidationError) return error.message;
      throw error;
    }
    throw new Error('expected the role to be refused');
  };

  it('reports parse errors at the line of the field', () => {
    const text = yaml([
      '  allow:',
      '    logins: [ubuntu]',
      '    node_labels_expression: \'labels["env"] == "prod")\'', // line 8
      '    app_labels_expression: |', // line 9
      '      labels.env == "dev" &&',
      '        regexp.match(labels.team, "^(x$")',
      '  deny:',
      '    db_labels_expression: labels.env', // line 13
      "    cluster_labels_expression: 'true'", // line 14
    ]);
    expect(issuesOf(text).split('\n')).toEqual([
      "line 8: spec.allow.node_labels_expression: unexpected ')' at column 24",
      "line 9: spec.allow.app_labels_expression: invalid regular expression: a missing ')' in '^(x$' at line 2, column 29 of the expression",
      'line 13: spec.deny.db_labels_expression: the expression must be a condition (true or false), not a value: compare it with == or use a function such as contains',
      'line 14: spec.deny.cluster_labels_expression: access to trusted clusters by label expression is not supported: trusted clusters are not supported yet',
    ]);
  });

  it('accepts every supported kind on both sides, and keeps the text', () => {
    const kinds = ['node', 'app', 'db', 'db_service', 'kubernetes', 'windows_desktop', 'group'];
    const lines = ['  allow:'];
    for (const kind of kinds) lines.push(`    ${kind}_labels_expression: 'labels.env == "dev"'`);
    lines.push('  deny:');
    for (const kind of kinds) lines.push(`    ${kind}_labels_expression: 'labels.env == "prod"'`);
    const { role: parsed } = parseRoleYaml(yaml(lines));
    expect(parsed.spec.allow.node_labels_expression).toBe('labels.env == "dev"');
    expect(parsed.spec.deny.group_labels_expression).toBe('labels.env == "prod"');
  });
});

describe('label expressions and widening a role', () => {
  const withAllow = (allow: object) => role('r', allow);
  const withDeny = (deny: object) => role('r', {}, deny);
  const map = { env: 'dev' };
  const e = 'labels.team == "x"';

  it('treats an expression as narrower only when it is added to a map that is kept', () => {
    const cases: Array<[before: object, after: object, widens: boolean]> = [
      [{}, { node_labels_expression: e }, true],
      [{ node_labels: map }, { node_labels: map, node_labels_expression: e }, false],
      [{ node_labels: map, node_labels_expression: e }, { node_labels: map }, true],
      [{ node_labels: map, node_labels_expression: e }, { node_labels_expression: e }, true],
      [{ node_labels_expression: e }, { node_labels_expression: 'labels.team == "y"' }, true],
      [{ node_labels_expression: e }, { node_labels_expression: e, node_labels: map }, false],
      [{ node_labels_expression: e }, {}, false],
      [{ node_labels: { '*': '*' } }, { node_labels_expression: e }, true],
      [{ app_labels_expression: e }, { app_labels_expression: `${e} || true` }, true],
    ];
    for (const [before, after, widens] of cases) {
      const reasons = roleWidenings(withAllow(before), withAllow(after));
      expect(reasons.length > 0, `${JSON.stringify(before)} → ${JSON.stringify(after)}`).toBe(
        widens,
      );
    }
  });

  it('on deny, keeps what the old version refused, everywhere included', () => {
    const cases: Array<[before: object, after: object, widens: boolean]> = [
      [{ node_labels_expression: e }, {}, true],
      [{ node_labels_expression: e }, { node_labels_expression: e, node_labels: map }, false],
      [{ node_labels: map }, { node_labels: map, node_labels_expression: e }, false],
      [{ node_labels: map, node_labels_expression: e }, { node_labels: map }, true],
      [{}, { node_labels_expression: e }, false],
      // Logins denied without labels are denied everywhere: an expression would narrow that.
      [{ logins: ['root'] }, { logins: ['root'], node_labels_expression: e }, true],
      [{ logins: ['root'] }, { logins: ['root'], node_labels: map }, true],
    ];
    for (const [before, after, widens] of cases) {
      const reasons = roleWidenings(withDeny(before), withDeny(after));
      expect(reasons.length > 0, `${JSON.stringify(before)} → ${JSON.stringify(after)}`).toBe(
        widens,
      );
    }
    expect(roleWidenings(withDeny({ node_labels_expression: e }), withDeny({}))).toEqual([
      'deny.node_labels_expression no longer denies more labels',
    ]);
  });
});
