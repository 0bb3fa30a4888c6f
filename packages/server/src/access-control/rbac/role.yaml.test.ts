import { roleIssuesFromMessage } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { RoleValidationError, parseRoleYaml, roleToYaml } from './role.yaml.js';

/** A role as the reference system's `get role` prints it (v7, keys sorted, defaults filled). */
const referenceRole = `kind: role
metadata:
  description: Developers
  labels:
    team: platform
  name: dev-access
  revision: 6d2f7f5e-3c3a-4f6b-9f3e-6f6a1b2c3d4e
spec:
  allow:
    app_labels:
      '*': '*'
    aws_role_arns:
    - '{{internal.aws_role_arns}}'
    db_labels:
      env: [dev, 'staging-*']
    db_names:
    - '{{internal.db_names}}'
    db_service_labels:
      '*': '*'
    db_users:
    - '{{internal.db_users}}'
    kubernetes_groups:
    - '{{internal.kubernetes_groups}}'
    kubernetes_labels:
      '*': '*'
    kubernetes_resources:
    - kind: '*'
      name: '*'
      namespace: '*'
      verbs:
      - '*'
    logins:
    - '{{internal.logins}}'
    - ubuntu
    node_labels:
      env: '^(dev|test)$'
      region: 'eu-*'
    request:
      roles: [prod-access]
      search_as_roles: [prod-access]
    rules:
    - resources:
      - session
      verbs:
      - read
      - list
      where: contains(session.participants, user.metadata.name)
    windows_desktop_labels:
      '*': '*'
    windows_desktop_logins:
    - '{{internal.windows_logins}}'
  deny:
    logins: [root]
  options:
    cert_format: standard
    create_db_user: false
    desktop_clipboard: true
    desktop_directory_sharing: true
    enhanced_recording:
    - command
    - network
    forward_agent: true
    idp:
      saml:
        enabled: true
    max_session_ttl: 30h0m0s
    pin_source_ip: false
    port_forwarding: true
    record_session:
      default: best_effort
      desktop: true
    ssh_file_copy: true
version: v7
`;

function issuesOf(text: string) {
  try {
    parseRoleYaml(text);
  } catch (error) {
    expect(error).toBeInstanceOf(RoleValidationError);
    expect((error as RoleValidationError).code).toBe('bad_parameter');
    expect((error as RoleValidationError).statusCode).toBe(400);
    return (error as RoleValidationError).issues;
  }
  throw new Error('expected the role to be refused');
}

const minimal = (body: string, version = 'v7') =>
  `kind: role\nversion: ${version}\nmetadata:\n  name: r\nspec:\n${body}`;

describe('parseRoleYaml', () => {
  it('reads a role pasted from the reference system', () => {
    const { role } = parseRoleYaml(referenceRole);
    expect(role.metadata).toEqual({
      name: 'dev-access',
      description: 'Developers',
      labels: { team: 'platform' },
      revision: '6d2f7f5e-3c3a-4f6b-9f3e-6f6a1b2c3d4e',
    });
    expect(role.spec.allow.logins).toEqual(['{{internal.logins}}', 'ubuntu']);
    expect(role.spec.allow.db_labels).toEqual({ env: ['dev', 'staging-*'] });
    expect(role.spec.options.max_session_ttl).toBe('30h0m0s');
    expect(role.spec.deny.logins).toEqual(['root']);
  });

  it('accepts v5 and v6 and stores them as v7', () => {
    const body = '  allow:\n    logins: [alice]\n    kubernetes_labels: {"*": "*"}\n';
    expect(parseRoleYaml(minimal(body, 'v5')).role.version).toBe('v7');
    expect(parseRoleYaml(minimal(body, 'v6')).role.version).toBe('v7');
    const v6deny =
      '  deny:\n    kubernetes_resources:\n    - {kind: pod, namespace: kube-system, name: "*"}\n';
    expect(parseRoleYaml(minimal(v6deny, 'v6')).role.spec.deny.kubernetes_resources).toEqual([
      { kind: 'pod', namespace: 'kube-system', name: '*', verbs: ['*'] },
    ]);
  });

  it('refuses version differences that change meaning, and unknown versions', () => {
    const v6allow =
      '  allow:\n    kubernetes_resources:\n    - {kind: pod, namespace: x, name: y}\n';
    expect(issuesOf(minimal(v6allow, 'v6'))).toEqual([
      expect.objectContaining({ path: 'spec.allow.kubernetes_resources', line: 7 }),
    ]);
    expect(issuesOf(minimal(v6allow, 'v5'))).toEqual([
      expect.objectContaining({ message: expect.stringContaining('not part of role version v5') }),
    ]);
    const v6deny = '  deny:\n    kubernetes_resources:\n    - {kind: deployment, name: y}\n';
    expect(issuesOf(minimal(v6deny, 'v6'))).toEqual([
      expect.objectContaining({ path: 'spec.deny.kubernetes_resources[0]', line: 8 }),
    ]);
    expect(issuesOf(minimal('  allow: {}\n', 'v3'))).toEqual([
      {
        path: 'version',
        line: 2,
        message: "unsupported role version 'v3': Postern reads v5, v6 and v7",
      },
    ]);
  });

  it('names an unknown field and its line, with a hint', () => {
    const text = minimal('  allow:\n    logins: [a]\n    loginz: [b]\n');
    expect(issuesOf(text)).toEqual([
      {
        path: 'spec.allow.loginz',
        line: 8,
        message: "unknown field 'spec.allow.loginz'; did you mean 'logins'?",
      },
    ]);
  });

  it('names a wrong type and its line, and lists every issue in the message', () => {
    const text = minimal(
      '  options:\n    forward_agent: "yes"\n  allow:\n    logins: root\n    node_labels:\n      env: 1\n',
    );
    const issues = issuesOf(text);
    expect(issues).toEqual([
      { path: 'spec.options.forward_agent', line: 7, message: "expected true or false, got 'yes'" },
      { path: 'spec.allow.logins', line: 9, message: "expected a list, got 'root'" },
      {
        path: 'spec.allow.node_labels.env',
        line: 11,
        message: 'expected a string or a list of strings',
      },
    ]);
    try {
      parseRoleYaml(text);
    } catch (error) {
      expect((error as Error).message).toContain(
        "line 9: spec.allow.logins: expected a list, got 'root'",
      );
      expect(roleIssuesFromMessage((error as Error).message)).toEqual(issues);
    }
  });

  it('checks values: templates, regexes, where clauses, verbs, durations, the * key', () => {
    const text = minimal(
      [
        '  options:',
        '    max_session_ttl: 8 hours', // line 7
        '  allow:',
        "    logins: ['{{internal.loginz}}']", // line 9
        '    node_labels:',
        "      env: '^(prod$'", // line 11
        "      '*': prod", // line 12
        '    rules:',
        '    - resources: [user]',
        '      verbs: [reed]', // line 15
        '      where: contains(user.metadata.name', // line 16
        '',
      ].join('\n'),
    );
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.line, i.path])).toEqual([
      [7, 'spec.options.max_session_ttl'],
      [9, 'spec.allow.logins[0]'],
      [11, 'spec.allow.node_labels.env'],
      [12, 'spec.allow.node_labels["*"]'],
      [15, 'spec.allow.rules[0].verbs[0]'],
      [16, 'spec.allow.rules[0].where'],
    ]);
    expect(issues[1]?.message).toBe("unknown internal trait 'loginz'");
  });

  it('explains refused reference fields instead of calling them unknown', () => {
    const text = minimal('  deny:\n    cluster_labels_expression: \'labels.env == "prod"\'\n');
    expect(issuesOf(text)).toEqual([
      {
        path: 'spec.deny.cluster_labels_expression',
        line: 7,
        message:
          'access to trusted clusters by label expression is not supported: trusted clusters are not supported yet',
      },
    ]);
  });

  it('reports missing fields at the enclosing field, and YAML syntax errors at their line', () => {
    expect(issuesOf('kind: role\nversion: v7\nmetadata:\n  description: x\nspec: {}\n')).toEqual([
      { path: 'metadata.name', line: 3, message: 'is required' },
    ]);
    const syntax = issuesOf('kind: role\nversion: v7\nmetadata:\n  name: r\n  name: s\n');
    expect(syntax).toEqual([expect.objectContaining({ path: 'yaml', line: 5 })]);
    expect(issuesOf('kind: role\nmetadata: [\n')[0]?.path).toBe('yaml');
    expect(issuesOf('')[0]).toMatchObject({ line: 1, message: 'the role is empty' });
  });

  it('reads JSON and empty sections', () => {
    const { role } = parseRoleYaml(
      '{"kind":"role","version":"v7","metadata":{"name":"j"},"spec":{"allow":null}}',
    );
    expect(role.spec).toEqual({ options: {}, allow: {}, deny: {} });
  });

  it('round-trips YAML → role → YAML → role', () => {
    const { role } = parseRoleYaml(referenceRole);
    const yaml = roleToYaml(role);
    expect(yaml).toContain("'*': '*'");
    expect(yaml).not.toMatch(/[&*]a\d/);
    expect(yaml.startsWith('kind: role\nversion: v7\nmetadata:')).toBe(true);
    expect(parseRoleYaml(yaml).role).toEqual(role);
  });
});
