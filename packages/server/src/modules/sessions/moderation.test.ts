import { describe, expect, it } from 'vitest';
import { RoleSet, parseRoleYaml, RoleValidationError } from '../../access-control/rbac/index.js';
import { Moderation, type Participant } from './moderation.js';

const role = (name: string, requireSessionJoin: string) =>
  parseRoleYaml(
    [
      'kind: role',
      'version: v7',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      '  allow:',
      '    require_session_join:',
      requireSessionJoin,
      '',
    ].join('\n'),
  ).role;

const policy = (fields: string[]) =>
  fields.map((line, n) => `${n === 0 ? '    - ' : '      '}${line}`).join('\n');

const auditors = role(
  'needs-auditor',
  policy([
    'name: one auditor',
    'filter: contains(user.roles, "auditor")',
    'kinds: [ssh]',
    'count: 1',
    'modes: [moderator]',
  ]),
);
const twoOrLead = role(
  'needs-two-or-lead',
  [
    policy([
      'name: two moderators',
      'kinds: ["*"]',
      'count: 2',
      'modes: [moderator]',
      'on_leave: pause',
    ]),
    policy([
      'name: the lead',
      'filter: equals(user.name, "lead")',
      'kinds: [k8s]',
      'count: 1',
      'modes: [moderator, peer]',
      'on_leave: pause',
    ]),
  ].join('\n'),
);

const onCall = role(
  'needs-on-call',
  policy([
    'name: someone on call',
    'filter: contains(user.spec.traits["rota"], "on-call")',
    'kinds: [ssh]',
    'count: 1',
    'modes: [moderator]',
  ]),
);

const moderationOf = (roles: (typeof auditors)[], kind: string, owner = 'alice') =>
  new Moderation(new RoleSet(roles, { name: owner, traits: {} }).moderationPolicySets(kind), owner);
const p = (user: string, mode: Participant['mode'], roles: string[] = []): Participant => ({
  user,
  mode,
  roles,
});

describe('moderation policies (require_session_join)', () => {
  it.each([
    ['nobody joined', [auditors], 'ssh', [], false],
    [
      'the owner alone never counts',
      [auditors],
      'ssh',
      [p('alice', 'moderator', ['auditor'])],
      false,
    ],
    [
      'an auditor moderating meets it',
      [auditors],
      'ssh',
      [p('bob', 'moderator', ['auditor'])],
      true,
    ],
    [
      'an auditor observing does not',
      [auditors],
      'ssh',
      [p('bob', 'observer', ['auditor'])],
      false,
    ],
    [
      'a moderator without the role does not',
      [auditors],
      'ssh',
      [p('bob', 'moderator', ['dev'])],
      false,
    ],
    ['a kind the policy does not name needs nobody', [auditors], 'k8s', [], true],
    [
      '* covers ssh: two moderators meet it',
      [twoOrLead],
      'ssh',
      [p('b', 'moderator'), p('c', 'moderator')],
      true,
    ],
    ['one moderator is not two', [twoOrLead], 'ssh', [p('b', 'moderator')], false],
    [
      'any one policy of a role suffices (the lead as a peer on k8s)',
      [twoOrLead],
      'k8s',
      [p('lead', 'peer')],
      true,
    ],
    [
      'every role must be met',
      [auditors, twoOrLead],
      'ssh',
      [p('b', 'moderator', ['auditor']), p('c', 'moderator')],
      true,
    ],
    [
      'a moderator with the trait the filter asks for meets it',
      [onCall],
      'ssh',
      [{ ...p('bob', 'moderator'), traits: { rota: ['on-call', 'day'] } }],
      true,
    ],
    [
      'a moderator without that trait value does not',
      [onCall],
      'ssh',
      [{ ...p('bob', 'moderator'), traits: { rota: ['day'] } }, p('carol', 'moderator')],
      false,
    ],
    [
      'every role must be met (one missing)',
      [auditors, twoOrLead],
      'ssh',
      [p('b', 'moderator', ['auditor'])],
      false,
    ],
  ] as const)('%s', (_name, roles, kind, participants, met) => {
    const moderation = moderationOf([...roles], kind);
    expect(moderation.fulfilledBy(participants)).toBe(met);
  });

  it('says who is needed, and what happens when they leave', () => {
    expect(moderationOf([auditors], 'ssh').describe()).toBe(
      '1 moderator matching contains(user.roles, "auditor")',
    );
    expect(moderationOf([auditors], 'ssh').onLeave()).toBe('terminate');
    expect(moderationOf([twoOrLead], 'k8s').onLeave()).toBe('pause');
    expect(moderationOf([auditors, twoOrLead], 'ssh').onLeave()).toBe('terminate');
    expect(moderationOf([auditors], 'k8s').required).toBe(false);
  });

  it('refuses, at the line, a bad filter and a kind without a shared screen', () => {
    const attempt = (lines: string[]) => {
      try {
        role('bad', policy(lines));
        return '';
      } catch (error) {
        expect(error).toBeInstanceOf(RoleValidationError);
        return (error as Error).message;
      }
    };
    expect(
      attempt([
        'name: x',
        'filter: contains(user.roles',
        'kinds: [ssh]',
        'count: 1',
        'modes: [moderator]',
      ]),
    ).toMatch(/line 9: spec\.allow\.require_session_join\[0\]\.filter/);
    expect(attempt(['name: x', 'kinds: [desktop]', 'count: 1', 'modes: [moderator]'])).toMatch(
      /line 9: .*expected ssh, k8s or \*: only terminal sessions can be moderated/,
    );
    expect(attempt(['name: x', 'kinds: [ssh]', 'count: 0', 'modes: [moderator]'])).toMatch(
      /line 10: .*count/,
    );
  });
});
