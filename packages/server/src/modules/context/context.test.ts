import { userContextSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const contextOf = async (roles: string[], user: string, cluster = 'test-cluster') => {
  const headers = await app.signIn(roles, user);
  return app.server.inject({ url: `/v1/webapi/sites/${cluster}/context`, headers });
};

describe('GET /sites/:clusterId/context', () => {
  it('gives an editor the user-management flags and not the audit log', async () => {
    const res = await contextOf(['editor'], 'eddie');
    expect(res.statusCode).toBe(200);
    const context = userContextSchema.parse(res.json());
    expect(context).toMatchObject({
      userName: 'eddie',
      authType: 'local',
      cluster: { name: 'test-cluster', status: 'online', publicURL: 'proxy.test:3080' },
      accessStrategy: { type: 'optional', prompt: '' },
      accessCapabilities: { requestableRoles: [], suggestedReviewers: [] },
      accessRequestId: '',
    });
    expect(context.userAcl.users).toEqual({
      list: true,
      read: true,
      edit: true,
      create: true,
      remove: true,
    });
    expect(context.userAcl.roles.edit).toBe(true);
    expect(context.userAcl.lock.create).toBe(true);
    expect(context.userAcl.events.list).toBe(false);
    expect(context.userAcl.nodes.list).toBe(false);
    expect(context.userAcl.clipboardSharingEnabled).toBe(true);
  });

  it('gives an auditor the audit log and recordings only', async () => {
    const { userAcl } = userContextSchema.parse((await contextOf(['auditor'], 'audrey')).json());
    expect(userAcl.events).toMatchObject({ list: true, read: true, edit: false });
    expect(userAcl.recordedSessions.list).toBe(true);
    expect(userAcl.users.list).toBe(false);
    expect(userAcl.nodes.list).toBe(false);
  });

  it('gives an access user the infrastructure to list, not users or the audit log', async () => {
    const { userAcl } = userContextSchema.parse((await contextOf(['access'], 'ann')).json());
    expect(userAcl.nodes).toMatchObject({ list: true, read: true, create: false });
    expect(userAcl.db.list).toBe(true);
    expect(userAcl.users.list).toBe(false);
    expect(userAcl.events.list).toBe(false);
  });

  it("reflects the roles' request options and requestable roles", async () => {
    await app.services.roles.create(
      `kind: role
version: v7
metadata: {name: requester}
spec:
  options: {request_access: reason, request_prompt: Say why}
  allow:
    request:
      roles: [audit*]
      suggested_reviewers: [boss]
`,
      { name: 'test', roleSet: null },
    );
    const context = (await contextOf(['requester'], 'rex', '-current-')).json();
    expect(context.accessStrategy).toEqual({ type: 'reason', prompt: 'Say why' });
    expect(context.accessCapabilities).toEqual({
      requestableRoles: ['auditor'],
      suggestedReviewers: ['boss'],
    });
    expect(context.userAcl.accessRequests.create).toBe(true);
  });

  it("names the user's roles and the logins they allow, traits filled in", async () => {
    await app.services.users.create({ name: 'lena', roles: ['access', 'auditor'] }, 'test');
    await app.services.users.update(
      { name: 'lena', traits: { logins: ['ubuntu', 'lena'] } },
      'test',
    );
    const context = userContextSchema.parse(
      (await contextOf(['access', 'auditor'], 'lena')).json(),
    );
    expect(context.roles).toEqual(['access', 'auditor']);
    expect(context.logins).toEqual(['lena', 'ubuntu']);

    // An editor's roles allow no login anywhere.
    const editor = userContextSchema.parse((await contextOf(['editor'], 'eddie')).json());
    expect(editor).toMatchObject({ roles: ['editor'], logins: [] });
  });

  it('needs a session and a known cluster', async () => {
    const anonymous = await app.server.inject({ url: '/v1/webapi/sites/test-cluster/context' });
    expect(anonymous.statusCode).toBe(401);
    expect((await contextOf(['access'], 'ann', 'elsewhere')).statusCode).toBe(404);
  });
});
