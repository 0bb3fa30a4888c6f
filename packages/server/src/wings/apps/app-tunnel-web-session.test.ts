import { apiPaths, appResourceSchema } from '@postern/contracts';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebSocketStream } from 'ws';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createAppRole } from './app-client.testkit.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';
import { openUpgrade, type UpgradeOutcome } from '../../testing/ws-upgrade.testkit.js';

/**
 * The tunnel routes (`tcpapps/NAME`, `sites/CLUSTER/tcpapps/NAME`, and the same for
 * `dbconnect`) with a web session's cookie and bearer, which is how a trusted root forwards its
 * users' tunnels to this cluster (identity/cli-login/tunnel-caller.ts). A TCP echo server on loopback is the app.
 */
let app: TestApp;
let port: number;
let echo: Server;

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const uri = `tcp://127.0.0.1:${(echo.address() as { port: number }).port}`;
  app = await createTestApp({
    clusterName: 'here',
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'echo', labels: { env: 'prod' } },
        spec: { uri },
      }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  await createSessionMfaRole(app, 'checked');
  ({ port } = await app.listenOnLoopback());
});

afterAll(async () => {
  echo?.close();
  await app?.close();
});

const upgrade = (path: string, headers: Record<string, string>) =>
  openUpgrade(`ws://127.0.0.1:${port}${path}`, headers);

const refusal = (answer: UpgradeOutcome) => ('socket' in answer ? 'open' : answer);

describe('a tunnel opened with a web session', () => {
  it('carries bytes, and outlives the rechecks with the session’s roles (no user record)', async () => {
    // signIn writes a session with no user record: access comes from the session's roles.
    const { cookie, authorization } = await app.signIn(['prod-apps'], 'visitor');
    const answer = await upgrade(apiPaths.appTcpIn('here', 'echo'), { cookie, authorization });
    if (!('socket' in answer)) throw new Error(`refused: ${answer.status} ${answer.body}`);
    const stream = createWebSocketStream(answer.socket);
    let received = '';
    stream.on('data', (chunk: Buffer) => (received += chunk.toString()));
    stream.write('one ');
    await eventually(() => received === 'one ', 10_000, 'the echo');
    // The tunnel asks again every 2 s whether its user still may.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    stream.write('two');
    await eventually(() => received === 'one two', 10_000, 'the second echo');
    answer.socket.close();
  });

  it('needs the bearer: a cookie alone (a page on another origin) is 401', async () => {
    const { cookie } = await app.signIn(['prod-apps'], 'visitor');
    expect(refusal(await upgrade(apiPaths.appTcp('echo'), { cookie }))).toMatchObject({
      status: 401,
    });
    const { authorization } = await app.signIn(['prod-apps'], 'visitor');
    expect(
      refusal(await upgrade(apiPaths.appTcp('echo'), { cookie, authorization })),
    ).toMatchObject({ status: 401 });
  });

  it('refuses a locked user (403), an app the roles do not reach (404) and another cluster (404)', async () => {
    const headers = await app.signIn(['prod-apps'], 'locked-out');
    await app.services.locks.create(
      { targets: { user: 'locked-out' }, message: 'not today' },
      hostActor('test'),
    );
    await eventually(
      () => app.services.lockWatcher.lockFor({ user: 'locked-out', roles: [] }) !== undefined,
      10_000,
      'the lock',
    );
    const locked = refusal(await upgrade(apiPaths.appTcp('echo'), headers));
    expect(locked).toMatchObject({ status: 403, body: expect.stringMatching(/locked: not today/) });
    const stranger = await app.signIn(['auditor'], 'stranger');
    expect(refusal(await upgrade(apiPaths.appTcp('echo'), stranger))).toMatchObject({
      status: 404,
    });
    const visitor = await app.signIn(['prod-apps'], 'visitor');
    const elsewhere = refusal(await upgrade(apiPaths.appTcpIn('there', 'echo'), visitor));
    expect(elsewhere).toMatchObject({ status: 404, body: expect.stringMatching(/there/) });
    const db = refusal(await upgrade(apiPaths.databaseConnectIn('there', 'pg'), visitor));
    expect(db).toMatchObject({ status: 404 });
  });

  it('refuses when the roles ask for per-session MFA, which only the console can ask for', async () => {
    const headers = await app.signIn(['prod-apps', 'checked'], 'careful');
    const answer = refusal(await upgrade(apiPaths.appTcp('echo'), headers));
    expect(answer).toMatchObject({
      status: 403,
      body: expect.stringMatching(/require an MFA check for each session.*postern on the root/),
    });
    // Only a trusted root's signed word stands for the check: a made-up one opens nothing.
    const forged = { ...headers, 'x-postern-root-mfa': 'eyJhbGciOiJFZERTQSJ9.e30.c2ln' };
    const refused = refusal(await upgrade(apiPaths.appTcp('echo'), forged));
    expect(refused).toMatchObject({
      status: 403,
      body: expect.stringMatching(/the MFA check for this session failed/),
    });
  });
});
