import { aclAreas, presetRoleNames } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import { aclAreaKinds, userAcl } from './acl.js';
import { canGrantRoles } from './grant.js';
import { presetRole, presetRoles } from './presets.js';
import { RoleSet } from './role-set.js';
import { parseRoleYaml, roleToYaml } from './role.yaml.js';

const full = { list: true, read: true, edit: true, create: true, remove: true };
const none = { list: false, read: false, edit: false, create: false, remove: false };
const user = { name: 'alice', traits: { logins: ['alice'] } };
const aclOf = (...names: Array<(typeof presetRoleNames)[number]>) =>
  userAcl(new RoleSet(names.map(presetRole), user));

describe('preset roles', () => {
  it('are valid roles that survive YAML both ways', () => {
    for (const role of presetRoles()) {
      const yaml = roleToYaml(role);
      expect(yaml).not.toContain('&a1');
      expect(parseRoleYaml(yaml).role).toEqual(role);
    }
    expect(presetRoles().map((r) => r.metadata.name)).toEqual([...presetRoleNames]);
  });

  it('editor: full users, roles and admin areas; no infrastructure, audit or recordings', () => {
    const acl = aclOf('editor');
    for (const area of [
      'users',
      'roles',
      'authConnectors',
      'trustedClusters',
      'tokens',
      'lock',
    ] as const) {
      expect(acl[area], area).toEqual(full);
    }
    expect(acl.integrations).toEqual({ ...full, use: true });
    for (const area of ['nodes', 'events', 'recordedSessions', 'activeSessions', 'db'] as const) {
      expect(acl[area], area).toEqual(none);
    }
  });

  it('auditor: events, recordings and active sessions to read; not users, not infrastructure', () => {
    const acl = aclOf('auditor');
    const readOnly = { ...none, list: true, read: true };
    expect(acl.events).toEqual(readOnly);
    expect(acl.recordedSessions).toEqual(readOnly);
    expect(acl.activeSessions).toEqual(readOnly);
    expect(acl.users).toEqual(none);
    expect(acl.nodes).toEqual(none);
    const set = new RoleSet([presetRole('auditor')], user);
    expect(set.loginsFor({ labels: {} })).toEqual([]);
  });

  it('access: nodes and other infrastructure to list, own sessions, no roles or users', () => {
    const acl = aclOf('access');
    const readOnly = { ...none, list: true, read: true };
    for (const area of [
      'nodes',
      'appServers',
      'dbServers',
      'db',
      'kubeServers',
      'desktops',
    ] as const) {
      expect(acl[area], area).toEqual(readOnly);
    }
    expect(acl.recordedSessions).toEqual(readOnly);
    expect(acl.roles).toEqual(none);
    expect(acl.users).toEqual(none);
    expect(acl.events).toEqual(none);
    const set = new RoleSet([presetRole('access')], user);
    expect(set.loginsFor({ labels: { env: 'prod' } })).toEqual(['alice']);
    expect(set.checkRule('session', 'read', { participants: ['bob'] })).toBe(false);
    expect(set.checkRule('session', 'read', { participants: ['alice', 'bob'] })).toBe(true);
  });

  it('merges options and maps the desktop flags', () => {
    const set = new RoleSet(presetRoles(), user);
    expect(set.options()).toMatchObject({ maxSessionTtlMs: 30 * 3_600_000, forwardAgent: true });
    expect(userAcl(set)).toMatchObject({
      clipboardSharingEnabled: true,
      desktopSessionRecording: true,
      directorySharing: true,
    });
  });

  it('maps every ACL area to at least one kind', () => {
    for (const area of aclAreas) expect(aclAreaKinds[area].length, area).toBeGreaterThan(0);
  });

  it('lets an editor grant any role, and others only the roles they hold', () => {
    const editor = new RoleSet([presetRole('editor')], user);
    expect(canGrantRoles(editor, ['access', 'custom'])).toEqual({ allowed: true, refused: [] });
    const access = new RoleSet([presetRole('access')], user);
    expect(canGrantRoles(access, ['access', 'editor'])).toEqual({
      allowed: false,
      refused: ['editor'],
    });
  });
});
