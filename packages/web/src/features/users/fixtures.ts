import type { UserJson, UserToken } from '@postern/contracts';

const noTraits = {
  logins: [],
  databaseUsers: [],
  databaseNames: [],
  kubeUsers: [],
  kubeGroups: [],
  windowsLogins: [],
  awsRoleArns: [],
};

/** `GET /v1/webapi/users` as the server sends it. */
export const userFixtures: UserJson[] = [
  {
    name: 'bob',
    roles: ['auditor'],
    authType: 'sso',
    isLocal: false,
    traits: noTraits,
  },
  {
    name: 'alice',
    roles: ['editor', 'access'],
    authType: 'local',
    isLocal: true,
    traits: { ...noTraits, logins: ['alice', 'root'], kubeGroups: ['viewers'] },
  },
];

export const inviteTokenFixture: UserToken = {
  tokenId: 'inv-123',
  user: 'carol',
  expiry: '2030-01-02T03:04:05Z',
  type: 'invite',
};
