import { describe, expect, it } from 'vitest';
import { permits } from './access-checker.js';
import type { AccessKind } from './expand.js';
import { RoleSet, type RoleSetUser } from './role-set.js';
import { roleSchema, type Role } from './role.schema.js';

/** Roles go through the schema, so every row is also a valid role. */
const role = (name: string, allow: object = {}, deny: object = {}): Role =>
  roleSchema.parse({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow, deny } });

const alice: RoleSetUser = {
  name: 'alice',
  traits: {
    logins: ['alice', 'ops'],
    windows_logins: ['Administrator'],
    db_names: ['orders'],
    db_users: ['reader'],
    kubernetes_groups: ['viewers'],
  },
  externalTraits: {
    email: ['alice@example.com'],
    groups: ['env-dev', 'env-qa', 'admins'],
    team: ['payments'],
  },
};

type Labels = Record<string, string>;
type Request =
  | { login: string; on: Labels }
  | { anyLogin: Labels }
  | { access: AccessKind; on: Labels }
  | { rule: [kind: string, verb: string]; resource?: unknown }
  | { guess: [kind: string, verb: string] }
  | { dbUser: string; on: Labels }
  | { kubeGroup: string; on: Labels }
  | { desktopLogin: string; on: Labels };

function decide(set: RoleSet, request: Request): boolean {
  if ('login' in request) return set.loginsFor({ labels: request.on }).includes(request.login);
  if ('anyLogin' in request) return set.loginsFor({ labels: request.anyLogin }).length > 0;
  if ('access' in request) return set.canAccess(request.access, { labels: request.on });
  if ('rule' in request) return set.checkRule(...request.rule, request.resource);
  if ('guess' in request) return set.guessRule(...request.guess);
  if ('dbUser' in request) return permits(set.dbUsersFor({ labels: request.on }), request.dbUser);
  if ('kubeGroup' in request)
    return set.kubeGroupsFor({ labels: request.on }).includes(request.kubeGroup);
  return set.desktopLoginsFor({ labels: request.on }).includes(request.desktopLogin);
}

const any = { '*': '*' };
const ubuntuOn = (node_labels: object) => role('r', { logins: ['ubuntu'], node_labels });
const prod = { env: 'prod' };
const dev = { env: 'dev' };
const denyRoot = role('d', {}, { logins: ['root'], node_labels: any });
const sshAll = role('a', { logins: ['ubuntu', 'root'], node_labels: any });
const users = (verbs: string[]) => ({ rules: [{ resources: ['user'], verbs }] });
const own = (verbs = ['list', 'read']) => ({
  rules: [
    { resources: ['session'], verbs, where: 'contains(session.participants, user.metadata.name)' },
  ],
});
const regexReplace = '{{regexp.replace(external.groups, "^env-(.*)$", "$1")}}';

// One row per decision: label, the role set, the request, allowed?
// prettier-ignore
const table: Array<[label: string, roles: Role[], request: Request, allowed: boolean]> = [
  // Labels: *, literal, glob, regex, lists, multi-key maps, missing labels.
  ["'*': '*' matches a node without labels", [ubuntuOn(any)], { login: 'ubuntu', on: {} }, true],
  ["'*': '*' matches a labelled node", [ubuntuOn(any)], { login: 'ubuntu', on: prod }, true],
  ['literal value matches', [ubuntuOn(prod)], { login: 'ubuntu', on: prod }, true],
  ['literal value mismatch', [ubuntuOn(prod)], { login: 'ubuntu', on: dev }, false],
  ['value * needs the label to exist', [ubuntuOn({ env: '*' })], { login: 'ubuntu', on: {} }, false],
  ['value * matches any value', [ubuntuOn({ env: '*' })], { login: 'ubuntu', on: dev }, true],
  ['glob prod-* matches', [ubuntuOn({ env: 'prod-*' })], { login: 'ubuntu', on: { env: 'prod-eu' } }, true],
  ['glob is anchored', [ubuntuOn({ env: 'prod-*' })], { login: 'ubuntu', on: { env: 'preprod-eu' } }, false],
  ['glob wildcard inside', [ubuntuOn({ az: 'eu-*-1' })], { login: 'ubuntu', on: { az: 'eu-west-1' } }, true],
  ['regex matches', [ubuntuOn({ env: '^(dev|qa)$' })], { login: 'ubuntu', on: { env: 'qa' } }, true],
  ['regex is anchored', [ubuntuOn({ env: '^(dev|qa)$' })], { login: 'ubuntu', on: { env: 'dev2' } }, false],
  ['list of values', [ubuntuOn({ env: ['dev', 'staging'] })], { login: 'ubuntu', on: { env: 'staging' } }, true],
  ['multi-key map needs every key', [ubuntuOn({ env: 'prod', team: 'db' })], { login: 'ubuntu', on: prod }, false],
  ['multi-key map, all keys match', [ubuntuOn({ env: 'prod', team: 'db' })], { login: 'ubuntu', on: { env: 'prod', team: 'db', x: 'y' } }, true],
  ['no node_labels grants no node', [role('r', { logins: ['ubuntu'] })], { login: 'ubuntu', on: {} }, false],
  ['label missing on the resource', [role('r', { app_labels: prod })], { access: 'app', on: {} }, false],
  ['app labels grant the app', [role('r', { app_labels: { env: 'prod*' } })], { access: 'app', on: { env: 'prod1' } }, true],
  ['db labels do not grant nodes', [role('r', { db_labels: any, logins: ['ubuntu'] })], { login: 'ubuntu', on: {} }, false],
  // Deny beats allow: logins, labels, rules.
  ['deny login on matching labels', [sshAll, denyRoot], { login: 'root', on: prod }, false],
  ['other logins survive a login deny', [sshAll, denyRoot], { login: 'ubuntu', on: prod }, true],
  ['deny logins * refuses every login there', [sshAll, role('d', {}, { logins: ['*'], node_labels: prod })], { login: 'ubuntu', on: prod }, false],
  ['deny logins * elsewhere leaves others', [sshAll, role('d', {}, { logins: ['*'], node_labels: prod })], { login: 'ubuntu', on: dev }, true],
  ['deny labels alone hide the node', [sshAll, role('d', {}, { node_labels: prod })], { access: 'node', on: prod }, false],
  ['deny login without labels applies everywhere', [sshAll, role('d', {}, { logins: ['root'] })], { login: 'root', on: dev }, false],
  ['deny app labels beat allow *', [role('a', { app_labels: any }), role('d', {}, { app_labels: prod })], { access: 'app', on: prod }, false],
  ['deny rule verb beats allow', [role('r', users(['*']), users(['delete']))], { rule: ['user', 'delete'] }, false],
  ['deny rule leaves other verbs', [role('r', users(['*']), users(['delete']))], { rule: ['user', 'read'] }, true],
  ['deny * kinds beat allow', [role('a', users(['delete'])), role('d', {}, { rules: [{ resources: ['*'], verbs: ['delete'] }] })], { rule: ['user', 'delete'] }, false],
  ['deny readnosecrets also refuses read', [role('r', users(['read']), users(['readnosecrets']))], { rule: ['user', 'read'] }, false],
  ['deny rule beats an implicit list', [role('r', { node_labels: any, rules: [] }, { rules: [{ resources: ['node'], verbs: ['list'] }] })], { rule: ['node', 'list'] }, false],
  ['deny db user beats allow *', [role('r', { db_labels: any, db_users: ['*'] }, { db_users: ['postgres'] })], { dbUser: 'postgres', on: {} }, false],
  // Templates: internal, external, email.local, regexp.replace, literals, unknown traits.
  ['internal.logins expands', [role('r', { logins: ['{{internal.logins}}'], node_labels: any })], { login: 'ops', on: {} }, true],
  ['internal.logins grants only the traits', [role('r', { logins: ['{{internal.logins}}'], node_labels: any })], { login: 'bob', on: {} }, false],
  ['external trait with a prefix', [role('r', { logins: ['svc-{{external.team}}'], node_labels: any })], { login: 'svc-payments', on: {} }, true],
  ['email.local', [role('r', { logins: ['{{email.local(external.email)}}'], node_labels: any })], { login: 'alice', on: {} }, true],
  ['unknown trait expands to nothing', [role('r', { logins: ['{{external.missing}}'], node_labels: any })], { anyLogin: {} }, false],
  ['no braces, no template', [role('r', { logins: ['internal.logins'], node_labels: any })], { login: 'internal.logins', on: {} }, true],
  ['template in a label value', [ubuntuOn({ env: regexReplace })], { login: 'ubuntu', on: { env: 'qa' } }, true],
  ['regexp.replace drops non-matching values', [ubuntuOn({ env: regexReplace })], { login: 'ubuntu', on: { env: 'admins' } }, false],
  ['windows logins from traits', [role('r', { windows_desktop_labels: any, windows_desktop_logins: ['{{internal.windows_logins}}'] })], { desktopLogin: 'Administrator', on: {} }, true],
  ['db users from traits', [role('r', { db_labels: any, db_users: ['{{internal.db_users}}'] })], { dbUser: 'reader', on: {} }, true],
  ['db users not in traits', [role('r', { db_labels: any, db_users: ['{{internal.db_users}}'] })], { dbUser: 'writer', on: {} }, false],
  ['kube groups from traits', [role('r', { kubernetes_labels: any, kubernetes_groups: ['{{internal.kubernetes_groups}}'] })], { kubeGroup: 'viewers', on: {} }, true],
  ['* is never a concrete login', [role('r', { logins: ['*'], node_labels: any })], { login: '*', on: {} }, false],
  // Rules: kinds, verbs, *, readnosecrets, where, implicit rules.
  ['rule grants its verb', [role('r', users(['list']))], { rule: ['user', 'list'] }, true],
  ['rule grants only its verbs', [role('r', users(['list']))], { rule: ['user', 'create'] }, false],
  ['rule grants only its kinds', [role('r', users(['list']))], { rule: ['role', 'list'] }, false],
  ['verb * grants every verb', [role('r', users(['*']))], { rule: ['user', 'delete'] }, true],
  ['kind * grants every kind', [role('r', { rules: [{ resources: ['*'], verbs: ['read'] }] })], { rule: ['event', 'read'] }, true],
  ['readnosecrets is not read', [role('r', users(['readnosecrets']))], { rule: ['user', 'read'] }, false],
  ['read implies readnosecrets', [role('r', users(['read']))], { rule: ['user', 'readnosecrets'] }, true],
  ['where: own session', [role('r', own())], { rule: ['session', 'read'], resource: { participants: ['alice'] } }, true],
  ["where: someone else's session", [role('r', own())], { rule: ['session', 'read'], resource: { participants: ['bob'] } }, false],
  ['where without the resource: check says no', [role('r', own())], { rule: ['session', 'list'] }, false],
  ['where without the resource: guess says maybe', [role('r', own())], { guess: ['session', 'list'] }, true],
  ['unknown where deny applies when checking', [role('r', { rules: [{ resources: ['session'], verbs: ['*'] }] }, own(['delete']))], { rule: ['session', 'delete'] }, false],
  ['a where deny that does not match lifts nothing', [role('r', { rules: [{ resources: ['session'], verbs: ['*'] }] }, own(['delete']))], { rule: ['session', 'delete'], resource: { participants: ['bob'] } }, true],
  ['unknown where deny is skipped when guessing', [role('r', users(['*']), { rules: [{ resources: ['user'], verbs: ['*'], where: 'equals(resource.metadata.name, "root")' }] })], { guess: ['user', 'read'] }, true],
  ['where on the user alone is decided', [role('r', { rules: [{ resources: ['user'], verbs: ['read'], where: 'equals(user.metadata.name, "alice") && !contains(user.spec.roles, "x")' }] })], { rule: ['user', 'read'] }, true],
  ['unsupported where function never grants', [role('r', { rules: [{ resources: ['user'], verbs: ['read'], where: 'matches(user.metadata.name, "a")' }] })], { rule: ['user', 'read'] }, false],
  ['node labels imply node list', [ubuntuOn(any)], { rule: ['node', 'list'] }, true],
  ['no node labels, no node list', [role('r', users(['list']))], { rule: ['node', 'list'] }, false],
  ['requestable roles imply access_request create', [role('r', { request: { roles: ['prod'] } })], { rule: ['access_request', 'create'] }, true],
  ['join policies imply active session list', [role('r', { join_sessions: [{ name: 'j', roles: ['access'], kinds: ['ssh'], modes: ['observer'] }] })], { guess: ['session_tracker', 'list'] }, true],
  ['no roles, no access', [], { guess: ['user', 'list'] }, false],
];

describe('RoleSet decisions', () => {
  it('has the table size the issue asks for', () =>
    expect(table.length).toBeGreaterThanOrEqual(40));

  it.each(table)('%s', (_label, roles, request, allowed) => {
    expect(decide(new RoleSet(roles, alice), request)).toBe(allowed);
  });
});
