import { createJoinTokenRequestSchema } from '@postern/contracts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../access-control/access/actor.js';
import { TestSchemas, testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { connectToNode, openExec } from '../ssh/client.js';
import { generateEd25519Key, parsePublicKey, publicKeyFromPrivatePem } from '../ssh/keys.js';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { runAgent, type RunningAgent } from './agent.js';
import { eventually, recordingLog } from './tunnel-proxy.testkit.js';

// Two proxies on one PostgreSQL schema, each listening on loopback with its own public address;
// an agent started against the first learns the second from the proxies' registry and keeps a
// tunnel to each, so a dial through either reaches its node.

const schemas = new TestSchemas();
const login = os.userInfo().username;
let first: TestApp;
let second: TestApp | undefined;
let agent: RunningAgent;
let dir: string;

async function listen(app: TestApp): Promise<number> {
  return (await app.listenOnLoopback()).port;
}

beforeAll(async () => {
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  const options = { storage, audit: storage, publicAddr: '127.0.0.1:0', insecureNoTls: true };
  first = await createTestApp(options);
  second = await createTestApp(options);
  const firstPort = await listen(first);
  await listen(second);
  dir = await mkdtemp(path.join(os.tmpdir(), 'postern-agent-proxies-'));
  const token = await first.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['Node'] }),
    hostActor('test'),
  );
  agent = await runAgent({
    proxy: `http://127.0.0.1:${firstPort}`,
    token: token.token,
    labels: {},
    dataDir: path.join(dir, 'agent'),
    insecure: false,
    log: recordingLog(),
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await second?.close();
  await first?.close();
  await schemas.dropAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('an agent and several proxies', () => {
  it('keeps a tunnel to every registered proxy, not only the one it was given', async () => {
    const ids = [first.services.proxies.id, second!.services.proxies.id];
    await eventually(
      () =>
        first.services.proxies.list().length === 2 && second!.services.proxies.list().length === 2,
      5000,
      'both proxies to see each other',
    );
    await eventually(() => first.services.tunnels.connected(agent.nodeId), 5000, 'tunnel to A');
    await eventually(() => second!.services.tunnels.connected(agent.nodeId), 5000, 'tunnel to B');
    await eventually(
      () => agent.tunnels().filter((tunnel) => tunnel.connected).length === 2,
      5000,
      'the agent to see both tunnels',
    );
    expect(agent.tunnels().map((tunnel) => tunnel.proxyId)).toEqual(ids);
  });

  it('is reached by a node dial through the proxy it was not given', async () => {
    const hostKey = parsePublicKey(
      publicKeyFromPrivatePem(await readFile(path.join(dir, 'agent', 'host_key'), 'utf8')),
    );
    const key = generateEd25519Key();
    const certificate = second!.services.ca.issueUserCertificate({
      user: 'alice',
      roles: ['access'],
      logins: [login],
      publicKey: key.publicKey,
      ttlMs: 60_000,
    });
    const client = await connectToNode({
      sock: await second!.services.tunnels.dial({ kind: 'node', name: agent.nodeId }),
      login,
      key: { privateKeyPem: key.privateKeyPem, certificate },
      verifyHostKey: (blob) => blob.equals(hostKey.blob),
    });
    try {
      const channel = await openExec(client, 'echo through-b');
      let output = '';
      channel.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      await new Promise((resolve) => channel.once('close', resolve));
      expect(output).toBe('through-b\n');
    } finally {
      client.end();
    }
  });

  it('drops the tunnel to a proxy that stopped and keeps the other', async () => {
    const firstId = first.services.proxies.id;
    await second!.close();
    second = undefined;
    await eventually(() => first.services.proxies.list().length === 1, 5000, 'B to leave the list');
    await eventually(() => agent.tunnels().length === 1, 5000, 'the agent to drop B');
    expect(agent.tunnels()).toEqual([
      expect.objectContaining({ proxyId: firstId, connected: true }),
    ]);
    expect(first.services.tunnels.connected(agent.nodeId)).toBe(true);
  });
});
