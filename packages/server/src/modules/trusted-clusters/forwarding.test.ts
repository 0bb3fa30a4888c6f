import { agentPaths, apiPaths, userContextSchema } from '@postern/contracts';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { connectLeaf } from './trusted-clusters.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { openTerminal } from '../../testing/terminal-client.testkit.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../testing/terminal-fixture.testkit.js';

/**
 * A root user reaches a leaf's resources through the root: the root's console calls about the
 * leaf (`sites/leaf/…`) and its terminal socket go through the leaf's tunnel, and the leaf's own
 * rules decide with the roles its role map gives. The leaf's node is a real sshd.
 */
const admin = hostActor('cli:test');

describe('a root user on a leaf cluster', () => {
  let root: TestApp;
  let rootUrl: string;
  let leaf: TerminalFixture;

  beforeAll(async () => {
    root = await createTestApp({ clusterName: 'root' });
    rootUrl = (await root.listenOnLoopback()).baseUrl;
    leaf = await startTerminalFixture({ clusterName: 'leaf', heartbeatIntervalMs: 300 });
    await connectLeaf(
      root,
      rootUrl,
      leaf.app,
      `[{remote: access, local: [${leaf.role}]}, {remote: '^aud.*$', local: [auditor]}]`,
    );
    await eventually(
      () => root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'the tunnel',
    );
  });
  afterAll(async () => {
    await leaf?.close();
    await root?.close();
  });

  // Over real HTTP: the root takes calls about a leaf before Fastify, so `inject` never sees them.
  const leafContext = async (headers: Record<string, string>) => {
    const res = await fetch(rootUrl + apiPaths.context('leaf'), { headers });
    const body: unknown = await res.json();
    return { statusCode: res.status, json: () => body as Record<string, string> };
  };

  it('is refused without a root session, and the leaf never hears of it', async () => {
    const res = await leafContext({});
    expect(res.statusCode).toBe(401);
    const bearerless = await root.signIn(['access']);
    expect((await leafContext({ cookie: bearerless.cookie })).statusCode).toBe(401);
  });

  it("gets the leaf's answer with the roles the leaf's role map gives", async () => {
    const res = await leafContext(await root.signIn(['auditor'], 'audrey'));
    expect(res.statusCode).toBe(200);
    const context = userContextSchema.parse(res.json());
    expect(context.userName).toBe('audrey');
    expect(context.userAcl.events.list).toBe(true);
    expect(context.userAcl.roles.create).toBe(false);
    const logins = await leaf.app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 50,
    });
    expect(logins.events.find((e) => e.code === 'T1001I' && e.user === 'audrey')).toMatchObject({
      method: 'trusted_cluster',
      connector: 'root',
      roles: ['auditor'],
    });
  });

  it("confines the leaf's answers: nothing in them may run on the root's origin", async () => {
    const res = await fetch(rootUrl + apiPaths.context('leaf'), {
      headers: await root.signIn(['access'], 'carol'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'; sandbox",
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('is refused when no role maps, and when a local user of the same name exists', async () => {
    const unmapped = await leafContext(await root.signIn(['editor'], 'eddie'));
    expect(unmapped.statusCode).toBe(403);
    expect(unmapped.json().message).toMatch(
      /none of eddie's roles on root \(editor\) map to a role on leaf/,
    );
    await leaf.app.services.users.create(
      { name: 'mallory', roles: ['editor'], traits: {} },
      'test',
    );
    const impostor = await leafContext(await root.signIn(['access'], 'mallory'));
    expect(impostor.statusCode).toBe(403);
    expect(impostor.json().message).toMatch(/a local user named mallory exists on leaf/);
  });

  it("opens a terminal on the leaf's node through the root, recorded and audited on the leaf", async () => {
    const headers = await root.signIn(['access'], 'alice');
    const terminal = await openTerminal({
      baseUrl: rootUrl,
      path: apiPaths.terminalConnect('leaf'),
      headers,
      params: { server_id: leaf.nodeId, login: 'root', term: { w: 80, h: 24 } },
    });
    expect(terminal.response.status).toBe('ok');
    terminal.type('echo through-the-root-$((6*7))\r');
    await terminal.waitForOutput('through-the-root-42');
    terminal.close();
    await terminal.closed;
    await eventually(
      async () => {
        const events = await leaf.app.audit.search({
          from: new Date(0),
          to: new Date(Date.now() + 60_000),
          limit: 100,
        });
        return events.events.some((e) => e.code === 'T2004I' && e.user === 'alice');
      },
      10_000,
      'the session end on the leaf',
    );
  });

  it('refuses, never opens unchecked, a terminal or a file transfer of a user whose roles on the root ask for per-session MFA', async () => {
    // The console cannot pass the root's check to the leaf yet: the leaf refuses with the reason.
    await createSessionMfaRole(root, 'checked-at-root');
    const headers = await root.signIn(['access', 'checked-at-root'], 'nina');
    const terminal = await openTerminal({
      baseUrl: rootUrl,
      path: apiPaths.terminalConnect('leaf'),
      headers,
      params: { server_id: leaf.nodeId, login: 'root', term: { w: 80, h: 24 } },
    });
    const { reason } = await terminal.closed;
    expect(reason).toContain('your roles on root require an MFA check for each session');
    expect(terminal.output()).toBe('');
    const errors = terminal.frames.filter((frame) => frame.type === 'e');
    expect(errors.map((frame) => frame.payload)).toEqual([
      expect.stringContaining(
        "require_session_mfa), which this client cannot ask for yet; the command line's postern ssh and postern join ask for it on a trusted cluster",
      ),
    ]);
    // The leaf's mfa/required says so to the root's console.
    const required = await fetch(rootUrl + apiPaths.mfaRequired('leaf'), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ node: { node_name: 'test-host', login: 'root' } }),
    });
    expect(await required.json()).toEqual({ required: true });
    // The console's file transfers on the leaf too.
    const query = new URLSearchParams({ location: '/etc/hostname' });
    const download = await fetch(
      `${rootUrl}${apiPaths.fileTransfer('leaf', leaf.nodeId, 'root')}?${query}`,
      { headers },
    );
    expect(download.status).toBe(403);
    expect(((await download.json()) as { message: string }).message).toContain(
      'your roles on root require an MFA check for each session',
    );
  });

  it('refuses a terminal whose first frame carries a bearer the root did not give', async () => {
    const headers = await root.signIn(['access'], 'alice');
    const terminal = await openTerminal({
      baseUrl: rootUrl,
      path: apiPaths.terminalConnect('leaf'),
      headers,
      token: 'f'.repeat(64),
      params: { server_id: leaf.nodeId, login: 'root', term: { w: 80, h: 24 } },
    });
    expect(terminal.response).toMatchObject({ status: 'error', message: 'not authenticated' });
    expect((await terminal.closed).code).toBe(1008);
  });

  it("the leaf's session route answers only through a root's tunnel, not on its web port", async () => {
    const res = await fetch(leaf.baseUrl + agentPaths.leafSession, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ root: 'root', identity: 'x' }),
    });
    expect(res.status).toBe(404);
  });

  it("a lock on the root stops the user's calls to the leaf", async () => {
    const headers = await root.signIn(['access'], 'lockedout');
    expect((await leafContext(headers)).statusCode).toBe(200);
    await root.services.locks.create(
      { targets: { user: 'lockedout' }, message: 'gone fishing' },
      admin,
    );
    await eventually(
      async () => (await leafContext(headers)).statusCode === 403,
      10_000,
      'the lock',
    );
    expect((await leafContext(headers)).json().message).toMatch(/locked: gone fishing/);
  });
});
