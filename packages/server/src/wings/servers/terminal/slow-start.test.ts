import { createServer, type Server, type Socket } from 'node:net';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { createRole } from '../../../testing/roles.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';

// A server that takes the connection and then says nothing (a busy agent or host, a proxy
// failing over) keeps the dial waiting until its timeout. The terminal says so after two
// seconds instead of staying blank: an `a` event `session.starting` the console prints.
let app: TestApp;
let baseUrl: string;
let silent: Server;
const held: Socket[] = [];

beforeAll(async () => {
  silent = createServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  app = await createTestApp();
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  await app.services.inventory.addOpenSsh(
    { name: 'silent-host', addr: `127.0.0.1:${port}`, labels: { env: 'slow' } },
    hostActor('test'),
  );
  await createRole(app, 'slow-access', {
    allow: { node_labels: { env: 'slow' }, logins: ['root'] },
  });
}, 60_000);

afterAll(async () => {
  for (const socket of held) socket.destroy();
  silent?.close();
  await app?.close();
});

describe('a terminal whose server is slow to answer', () => {
  it('is told it is still connecting, not left blank', async () => {
    const client = await openTerminal({
      baseUrl,
      headers: await app.signIn(['slow-access'], 'sam'),
      params: { server_id: 'silent-host', login: 'root', term: { w: 80, h: 24 } },
    });
    expect(client.response.status).toBe('ok');
    const startedAt = Date.now();
    const starting = () =>
      client.frames
        .filter((f) => f.type === T.audit)
        .map((f) => JSON.parse(f.payload) as { event: string; elapsed_ms?: number })
        .find((e) => e.event === 'session.starting');
    await client.waitFor(() => starting() !== undefined, 'the starting notice', 6000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1500);
    expect(starting()).toEqual({ event: 'session.starting', elapsed_ms: 2000 });
    client.close();
  });
});
