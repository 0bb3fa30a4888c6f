import { describe, expect, it } from 'vitest';
import { apiPaths } from './api-paths.js';
import { userContextSchema } from './context.js';
import { emptyAcl } from './acl.js';
import { createLockRequestSchema, lockTargetsSchema } from './locks.js';
import { userUpsertRequestSchema } from './users-admin.js';

/** A user context as the server sends it, every field present. */
const contextFixture = () => ({
  userName: 'bob',
  authType: 'local',
  roles: ['access'],
  logins: ['bob', 'root'],
  userAcl: emptyAcl(),
  cluster: {
    name: 'c',
    lastConnected: '2026-01-01T00:00:00Z',
    status: 'online',
    nodeCount: 0,
    publicURL: 'c:3080',
    authVersion: '0.1.0',
    proxyVersion: '0.1.0',
  },
  accessStrategy: { type: 'optional', prompt: '' },
  accessCapabilities: { requestableRoles: [], suggestedReviewers: [] },
  accessRequestId: '',
  accessRequestExpires: '',
  assumedRoles: [],
  allowedSearchAsRoles: [],
});

describe('access-control contracts', () => {
  it('encode names in paths so they cannot leave their segment', () => {
    expect(apiPaths.role('a/b')).toBe('/v1/webapi/roles/a%2Fb');
    expect(apiPaths.user('bob@example.com')).toBe('/v1/webapi/users/bob%40example.com');
    expect(apiPaths.lock('-current-', 'u-1')).toBe('/v1/webapi/sites/-current-/locks/u-1');
    expect(apiPaths.context('prod')).toBe('/v1/webapi/sites/prod/context');
  });

  it('take a lock on exactly one target, with a ttl or an expiry but not both', () => {
    expect(lockTargetsSchema.safeParse({ user: 'bob' }).success).toBe(true);
    expect(lockTargetsSchema.safeParse({}).success).toBe(false);
    expect(lockTargetsSchema.safeParse({ user: 'a', role: 'b' }).success).toBe(false);
    expect(lockTargetsSchema.safeParse({ device: 'x' }).success).toBe(false);
    const body = { targets: { role: 'dev' }, ttl: '1h' };
    expect(createLockRequestSchema.parse(body)).toEqual({ ...body, message: '' });
    expect(
      createLockRequestSchema.safeParse({ ...body, expires: '2030-01-01T00:00:00Z' }).success,
    ).toBe(false);
    expect(
      createLockRequestSchema.safeParse({ targets: { role: 'dev' }, expires: 'tomorrow' }).success,
    ).toBe(false);
  });

  it('need a user name and at least one role to create or update a user', () => {
    expect(userUpsertRequestSchema.safeParse({ name: 'bob', roles: ['access'] }).success).toBe(
      true,
    );
    expect(userUpsertRequestSchema.safeParse({ name: 'bob', roles: [] }).success).toBe(false);
    expect(userUpsertRequestSchema.safeParse({ name: 'b/b', roles: ['x'] }).success).toBe(false);
    const withTraits = { name: 'bob', roles: ['x'], traits: { logins: ['', 'ok'] } };
    expect(userUpsertRequestSchema.safeParse(withTraits).success).toBe(false);
  });

  it('describe the user context the console bootstraps from', () => {
    const context = contextFixture();
    expect(userContextSchema.parse(context)).toEqual(context);
    // An older server without the access request additions: none assumed, none to search as.
    const {
      accessRequestExpires: _e,
      assumedRoles: _a,
      allowedSearchAsRoles: _s,
      ...older
    } = context;
    expect(userContextSchema.parse(older)).toEqual(context);
    // An older server that does not name roles and logins: the console shows none.
    const { roles: _roles, logins: _logins, ...withoutRoles } = context;
    expect(userContextSchema.parse(withoutRoles)).toMatchObject({ roles: [], logins: [] });
    const { users: _users, ...missingArea } = emptyAcl();
    expect(userContextSchema.safeParse({ ...context, userAcl: missingArea }).success).toBe(false);
  });

  it('default the three desktop ACL flags to true when the context leaves them out', () => {
    const {
      clipboardSharingEnabled: _c,
      desktopSessionRecording: _r,
      directorySharing: _d,
      ...withoutDesktopFlags
    } = emptyAcl();
    const { userAcl } = userContextSchema.parse({
      ...contextFixture(),
      userAcl: withoutDesktopFlags,
    });
    expect(userAcl).toMatchObject({
      clipboardSharingEnabled: true,
      desktopSessionRecording: true,
      directorySharing: true,
    });
    // Present flags are kept as sent.
    const denied = { ...emptyAcl(), clipboardSharingEnabled: false, directorySharing: false };
    expect(userContextSchema.parse({ ...contextFixture(), userAcl: denied }).userAcl).toEqual(
      denied,
    );
  });
});
