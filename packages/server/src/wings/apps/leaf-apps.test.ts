import { appResourceSchema } from '@postern/contracts';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';
import {
  startRootAndLeafTunnels,
  type RootAndLeafTunnels,
} from '../../modules/trusted-clusters/leaf-tunnels.testkit.js';
import { createAppRole, verifiedJwtClaims } from './app-client.testkit.js';
import { fetchApps } from './cli/apps.commands.js';

/**
 * A trusted leaf's TCP app from the root's command line (`postern apps ls --cluster`, `postern
 * proxy app --cluster`): bytes through the root's web port and the leaf's tunnel to a TCP echo
 * server on the leaf's side, with the leaf's role map and RBAC deciding.
 */
let world: RootAndLeafTunnels;
let echo: Server;
let web: HttpServer;
/** What the HTTP app behind the leaf was asked, with the identity header it got. */
const webSaw: { url: string; jwt: string | undefined }[] = [];

beforeAll(async () => {
  world = await startRootAndLeafTunnels('leaf-apps');
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const uri = `tcp://127.0.0.1:${(echo.address() as { port: number }).port}`;
  await world.leaf.services.apps.create(
    appResourceSchema.parse({
      kind: 'app',
      metadata: { name: 'echo', labels: { env: 'test' } },
      spec: { uri },
    }),
    hostActor('test'),
  );
  web = createHttpServer((req, res) => {
    webSaw.push({ url: req.url ?? '', jwt: req.headers['postern-jwt-assertion'] as string });
    res.end(`hello from ${req.url}`);
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  await world.leaf.services.apps.create(
    appResourceSchema.parse({
      kind: 'app',
      metadata: { name: 'wiki', labels: { env: 'test' } },
      spec: { uri: `http://127.0.0.1:${(web.address() as { port: number }).port}` },
    }),
    hostActor('test'),
  );
  await createAppRole(world.leaf, 'leaf-apps', { env: 'test' });
}, 60_000);

afterAll(async () => {
  echo?.close();
  web?.close();
  await world?.stop();
});

describe("a leaf's TCP apps through the root", () => {
  it('apps ls --cluster lists them, and proxy app --cluster carries bytes both ways', async () => {
    const env = await world.envOf('alice', ['access']);
    expect((await fetchApps(env, 'leaf')).map((app) => app.name).sort()).toEqual(['echo', 'wiki']);
    const { port } = await world.proxyOnLeaf('alice', ['access'], { kind: 'app', name: 'echo' });
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.write('ping ');
    await eventually(() => received === 'ping ', 10_000, 'the echo');
    // Past the leaf's recheck (every 2 s), judged with the roles its role map gave.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    socket.write('pong');
    await eventually(() => received === 'ping pong', 10_000, 'the second echo');
    socket.destroy();
    await eventually(
      async () =>
        (await world.eventsOf(world.root)).some(
          (e) => e.code === 'TPOS062I' && e.kind === 'app' && e.name === 'echo',
        ),
      10_000,
      "the root's hop event",
    );
  });

  it('a web app of the leaf as plain HTTP through the tunnel, with the leaf’s JWT for the root’s user', async () => {
    const { port } = await world.proxyOnLeaf('alice', ['access'], { kind: 'app', name: 'wiki' });
    const answer = await fetch(`http://127.0.0.1:${port}/notes?id=7`);
    expect(await answer.text()).toBe('hello from /notes?id=7');
    const token = webSaw.findLast((seen) => seen.url === '/notes?id=7')?.jwt;
    // Signed by the leaf's app key (its JWKS), naming the root's user with the leaf's roles.
    expect(await verifiedJwtClaims(world.leaf, String(token))).toMatchObject({
      username: 'alice',
      roles: ['leaf-apps'],
    });
  });

  it('a user the leaf maps no role to is told why', async () => {
    const { port, logged } = await world.proxyOnLeaf('eve', ['auditor'], {
      kind: 'app',
      name: 'echo',
    });
    connect(port, '127.0.0.1').on('error', () => undefined);
    await eventually(() => logged.length > 0, 10_000, 'the refusal');
    expect(logged[0]).toMatch(/echo on leaf: leaf: none of eve's roles .* map to a role/);
  });
});
