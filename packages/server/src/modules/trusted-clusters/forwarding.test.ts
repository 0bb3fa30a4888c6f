import {
  agentPaths,
  apiPaths,
  terminalMessageTypes as T,
  userContextSchema,
} from '@postern/contracts';
import { readFile } from 'node:fs/promises';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { connectLeaf } from './trusted-clusters.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { openTerminal, type TerminalClient } from '../../testing/terminal-client.testkit.js';
import { createRole, createSessionMfaRole } from '../../testing/roles.testkit.js';
import { inviteUser, nextTotp, type TestUser } from '../../testing/identity.testkit.js';
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
      `[{remote: access, local: [${leaf.role}]}, {remote: '^aud.*$', local: [auditor]}, {remote: leaf-checked, local: [checked]}]`,
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

  it("keeps the user's pins on the leaf, whose list of pinned resources answers by them", async () => {
    const headers = await root.signIn(['access'], 'pia');
    const pins = rootUrl + apiPaths.userClusterPreferences('leaf');
    const pinned = [`node/${leaf.nodeId}`, 'db/gone'];
    const put = await fetch(pins, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ pinnedResources: { resourceIds: pinned } }),
    });
    expect(put.status).toBe(200);
    const read = await fetch(pins, { headers });
    expect(await read.json()).toEqual({ pinnedResources: { resourceIds: pinned } });

    const list = await fetch(`${rootUrl}${apiPaths.unifiedResources('leaf')}?pinnedOnly=true`, {
      headers,
    });
    const { items } = (await list.json()) as { items: { id: string; kind: string }[] };
    expect(items.map((item) => `${item.kind}/${item.id}`)).toEqual([`node/${leaf.nodeId}`]);
    // Another user's pins on the leaf are their own.
    const other = await fetch(pins, { headers: await root.signIn(['access'], 'quinn') });
    expect(await other.json()).toEqual({ pinnedResources: { resourceIds: [] } });
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

  describe('per-session MFA on the leaf, in the console: the root runs the check', () => {
    const terminalFor = (headers: Record<string, string>) =>
      openTerminal({
        baseUrl: rootUrl,
        path: apiPaths.terminalConnect('leaf'),
        headers,
        params: { server_id: leaf.nodeId, login: 'root', term: { w: 80, h: 24 } },
      });
    /** Waits for the challenge on the socket, checks it is the root's, and answers `code`. */
    const answer = async (terminal: TerminalClient, code: string) => {
      const challenged = () => terminal.frames.find((frame) => frame.type === T.mfaChallenge);
      await terminal.waitFor(() => challenged() !== undefined, 'the MFA challenge');
      const challenge = JSON.parse(challenged()!.payload) as Record<string, unknown>;
      // The root's own (an authenticator code will do); the leaf's nonce never reaches it.
      expect(challenge).toMatchObject({ totp_challenge: true });
      expect(challenge).not.toHaveProperty('root_check');
      terminal.send(T.mfaChallenge, JSON.stringify({ totp_code: code }));
    };
    let nina: TestUser;
    let lena: TestUser;

    beforeAll(async () => {
      await createSessionMfaRole(root, 'checked-at-root');
      await createRole(root, 'leaf-checked', {});
      await createSessionMfaRole(leaf.app, 'checked');
      nina = await inviteUser(root, 'nina', { roles: ['access', 'checked-at-root'] });
      lena = await inviteUser(root, 'lena', { roles: ['access', 'leaf-checked'] });
    });

    it("a root role's rule: the root asks its user, and the leaf's terminal opens", async () => {
      const terminal = await terminalFor(nina.headers);
      await answer(terminal, nextTotp(root, nina.totpSecret!));
      terminal.type('echo checked-on-root-$((6*7))\r');
      await terminal.waitForOutput('checked-on-root-42');
      terminal.close();
      // The leaf's mfa/required says so to the root's console.
      const required = await fetch(rootUrl + apiPaths.mfaRequired('leaf'), {
        method: 'POST',
        headers: { ...nina.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ node: { node_name: 'test-host', login: 'root' } }),
      });
      expect(await required.json()).toEqual({ required: true });
    });

    it('a file transfer on the leaf: checked on the root, which vouches for it to the leaf', async () => {
      const query = new URLSearchParams({ location: '/etc/hostname' });
      const download = () =>
        fetch(`${rootUrl}${apiPaths.fileTransfer('leaf', leaf.nodeId, 'root')}?${query}`, {
          headers: nina.headers,
        });
      const before = await download();
      expect(before.status).toBe(403);
      expect(((await before.json()) as { error: { code: string } }).error.code).toBe(
        'mfa_required',
      );
      // What the console does: the check for the server, on the root, with the root's devices.
      const resource = `files:${leaf.nodeId}`;
      const post = (path: string, body: object) =>
        fetch(rootUrl + path, {
          method: 'POST',
          headers: { ...nina.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post(apiPaths.sessionMfaChallenge, { resource })).status).toBe(200);
      const mfa_response = { totp_code: nextTotp(root, nina.totpSecret!) };
      expect((await post(apiPaths.sessionMfaVerify, { resource, mfa_response })).status).toBe(200);
      const after = await download();
      expect(after.status).toBe(200);
      expect(await after.text()).toBe(await readFile('/etc/hostname', 'utf8'));
      // A word the caller makes up is never passed on: only the root speaks for its checks.
      const forged = await fetch(
        `${rootUrl}${apiPaths.fileTransfer('leaf', leaf.nodeId, 'root')}?${query}`,
        { headers: { ...lena.headers, 'x-postern-root-mfa': 'made.up.word' } },
      );
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: { code: string } }).error.code).toBe(
        'mfa_required',
      );
    });

    it("a leaf role's rule, for a user the root asks nothing of", async () => {
      const terminal = await terminalFor(lena.headers);
      await answer(terminal, nextTotp(root, lena.totpSecret!));
      terminal.type('echo checked-for-leaf-$((6*7))\r');
      await terminal.waitForOutput('checked-for-leaf-42');
      terminal.close();
    });

    it('a wrong code opens nothing on the leaf', async () => {
      const before = new Set(leaf.app.services.hub.list().map((t) => t.id));
      const terminal = await terminalFor(nina.headers);
      await answer(terminal, '000000');
      const { code, reason } = await terminal.closed;
      expect([code, reason]).toEqual([
        1008,
        expect.stringContaining('the MFA check for this session failed'),
      ]);
      expect(terminal.output()).toBe('');
      expect(leaf.app.services.hub.list().filter((t) => !before.has(t.id))).toEqual([]);
    });
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
