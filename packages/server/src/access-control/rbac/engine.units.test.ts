import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';
import { mergeOptions } from './options.js';
import { RoleSet } from './role-set.js';
import { roleSchema, type RoleOptions } from './role.schema.js';
import { expandTemplate } from './templates.js';
import { evaluateWhere, parseWhere } from './where.js';

const role = (name: string, allow: object = {}, deny: object = {}) =>
  roleSchema.parse({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow, deny } });

describe('durations', () => {
  it.each([
    ['8h', 8 * 3_600_000],
    ['30m', 1_800_000],
    ['1h30m', 5_400_000],
    ['30h0m0s', 30 * 3_600_000],
    ['1.5h', 5_400_000],
    ['500ms', 500],
    ['0', 0],
    ['never', 0],
  ])('%s', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', '8', 'h', '8 hours', '-1h', '1d'])('refuses %j', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('options merge: the most restrictive wins', () => {
  const merged = (...all: RoleOptions[]) => mergeOptions(all);
  it('takes the smallest TTL (unset counts as 30h) and the smallest non-zero idle timeout', () => {
    expect(merged({ max_session_ttl: '8h' }, {}).maxSessionTtlMs).toBe(8 * 3_600_000);
    expect(merged({ max_session_ttl: '40h' }, {}).maxSessionTtlMs).toBe(30 * 3_600_000);
    expect(
      merged({ client_idle_timeout: '0s' }, { client_idle_timeout: '15m' }, {}).clientIdleTimeoutMs,
    ).toBe(900_000);
    expect(merged({}).clientIdleTimeoutMs).toBe(0);
  });
  it('requires MFA if any role does, and records as strictly as any role asks', () => {
    const o = merged(
      { require_session_mfa: true, record_session: { default: 'off', desktop: false } },
      { record_session: { default: 'strict' } },
    );
    expect(o.requireSessionMfa).toBe(true);
    expect(o.recordSession).toEqual({
      default: 'strict',
      ssh: 'strict',
      k8s: 'strict',
      desktop: true,
    });
    expect(merged({ record_session: { default: 'off', desktop: false } }).recordSession).toEqual({
      default: 'off',
      ssh: 'off',
      k8s: 'off',
      desktop: false,
    });
  });
  it('turns a sharing or forwarding switch off if any role says false', () => {
    const o = merged({ desktop_clipboard: false, forward_agent: true }, { forward_agent: false });
    expect(o).toMatchObject({
      desktopClipboard: false,
      desktopDirectorySharing: true,
      forwardAgent: false,
    });
    expect(merged({ forward_agent: true }, {}).forwardAgent).toBe(true);
    expect(merged({}).forwardAgent).toBe(false);
    expect(merged({}).portForwarding).toBe(true);
    expect(merged({ ssh_port_forwarding: { remote: { enabled: false } } }).portForwarding).toBe(
      false,
    );
  });
  it('takes the strictest access request strategy', () => {
    const o = merged(
      { request_access: 'reason', request_prompt: 'why?' },
      { request_access: 'optional' },
    );
    expect(o).toMatchObject({ requestAccess: 'reason', requestPrompt: 'why?' });
  });
});

describe('where clauses', () => {
  const user = {
    metadata: { name: 'alice' },
    spec: { roles: ['access'], traits: { team: ['db'] } },
  };
  it('parses the supported forms and refuses broken ones', () => {
    expect(() =>
      parseWhere('contains(session.participants, user.metadata.name) || !equals("a", "b")'),
    ).not.toThrow();
    for (const bad of ['', 'contains(a', 'a && b', 'equals("a", "b") &&', 'x["k]']) {
      expect(() => parseWhere(bad), bad).toThrow();
    }
  });
  it('is three-valued: unknown without the resource', () => {
    const expr = parseWhere(
      'contains(user.spec.traits["team"], "db") && equals(resource.metadata.name, "x")',
    );
    expect(evaluateWhere(expr, { user })).toBeUndefined();
    expect(evaluateWhere(expr, { user, resource: { metadata: { name: 'x' } } })).toBe(true);
    expect(evaluateWhere(parseWhere('!contains(user.spec.roles, "editor")'), { user })).toBe(true);
    expect(
      evaluateWhere(parseWhere('equals(resource.kind, "x") || equals("a", "a")'), { user }),
    ).toBe(true);
  });
});

describe('templates and principals', () => {
  it('expands with prefixes, brackets and functions', () => {
    const traits = {
      externalTraits: { 'http://claims/role': ['ops'], email: ['a.b@x.io', 'bad'] },
    };
    expect(expandTemplate('team-{{external["http://claims/role"]}}', traits)).toEqual(['team-ops']);
    expect(expandTemplate('{{ email.local(external.email) }}', traits)).toEqual(['a.b']);
    expect(expandTemplate('{{external.none}}', traits)).toEqual([]);
  });
  it('reports database names and users with wildcards and exceptions', () => {
    const set = new RoleSet(
      [
        role(
          'r',
          { db_labels: { '*': '*' }, db_names: ['*', 'orders'], db_users: ['reader'] },
          { db_names: ['secrets'] },
        ),
      ],
      { name: 'alice' },
    );
    expect(set.dbNamesFor({ labels: {} })).toEqual({
      values: ['orders'],
      any: true,
      except: ['secrets'],
    });
    expect(set.dbUsersFor({ labels: {} })).toEqual({ values: ['reader'], any: false, except: [] });
  });
  it('lists requestable roles by pattern, minus denied ones', () => {
    const set = new RoleSet(
      [
        role(
          'r',
          { request: { roles: ['prod-*', 'auditor'], search_as_roles: ['^db-.*$'] } },
          { request: { roles: ['prod-admin'] } },
        ),
      ],
      { name: 'alice' },
    );
    const all = ['auditor', 'db-read', 'editor', 'prod-admin', 'prod-read'];
    expect(set.requestableRoles(all)).toEqual(['auditor', 'prod-read']);
    expect(set.searchAsRoles(all)).toEqual(['db-read']);
  });
});
