import { randomUUID, sign, type KeyObject } from 'node:crypto';
import { agentPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { MemoryBackend } from '../../backend/memory.js';
import {
  eventually,
  startTunnelProxy,
  type TunnelProxy,
} from '../../agent/tunnel-proxy.testkit.js';
import { ClusterCa } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../../ssh/keys.js';
import { proofMessage, tunnelProtocolVersion } from './tunnel-protocol.js';

interface RawAgent {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
}

/**
 * A hand-driven agent, so each step of the handshake can be got wrong on purpose. Its hello
 * advertises its node service unless `hello` says what to send instead.
 */
function rawAgent(
  proxy: TunnelProxy,
  identity: { nodeId: string; hostCertificate: string },
  signWith: KeyObject,
  options: { autoPong?: boolean; hello?: Record<string, unknown> } = {},
): RawAgent {
  const { nodeId, hostCertificate } = identity;
  const hello = options.hello ?? {
    version: tunnelProtocolVersion,
    nodeId,
    hostCertificate,
    services: [{ kind: 'node', name: nodeId }],
  };
  const socket = new WebSocket(`${proxy.url.replace('http', 'ws')}${agentPaths.tunnel}`, {
    autoPong: options.autoPong ?? true,
  });
  const messages: Array<Record<string, unknown>> = [];
  socket.on('open', () => socket.send(JSON.stringify(hello)));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    messages.push(message);
    if (typeof message.challenge === 'string') {
      const proof = proofMessage(nodeId, Buffer.from(message.challenge, 'base64'));
      socket.send(JSON.stringify({ signature: sign(null, proof, signWith).toString('base64') }));
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return { socket, messages, closed };
}

function hostIdentity(ca: ClusterCa, principals?: string[]) {
  const key = generateEd25519Key();
  const nodeId = randomUUID();
  const hostCertificate = ca.issueHostCertificate({
    publicKey: key.publicKey,
    principals: principals ?? [nodeId],
    hostId: nodeId,
    ttlMs: 3600_000,
  });
  return { nodeId, hostCertificate, privateKey: ed25519PrivateKeyObject(key.privateKeyPem) };
}

const isReady = (agent: RawAgent) => agent.messages.some((message) => message.type === 'ready');

describe('agent tunnel, proxy side', () => {
  let proxy: TunnelProxy;
  beforeAll(async () => {
    proxy = await startTunnelProxy({ dialTimeoutMs: 300, pingIntervalMs: 200 });
  });
  afterAll(() => proxy.close());

  it('lets in an agent with a host certificate of the cluster and a signed challenge', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    expect(proxy.registry.connected(node.nodeId)).toBe(true);
    agent.socket.close();
    await eventually(() => !proxy.registry.connected(node.nodeId), 3000, 'unregistered');
  });

  it('refuses a certificate from another CA', async () => {
    const otherCa = await ClusterCa.loadOrCreate(new MemoryBackend(), 'other-cluster');
    const node = hostIdentity(otherCa);
    const { closed, messages } = rawAgent(proxy, node, node.privateKey);
    expect(await closed).toEqual({
      code: 1008,
      reason: expect.stringMatching(/not signed by a trusted CA/) as unknown,
    });
    expect(messages).not.toContainEqual(expect.objectContaining({ type: 'ready' }));
    expect(proxy.registry.connected(node.nodeId)).toBe(false);
  });

  it('refuses a certificate issued to another node', async () => {
    const node = hostIdentity(proxy.ca, [randomUUID()]);
    const { closed } = rawAgent(proxy, node, node.privateKey);
    expect((await closed).reason).toMatch(/does not list principal/);
    expect(proxy.registry.connected(node.nodeId)).toBe(false);
  });

  it('refuses a user certificate', async () => {
    const key = generateEd25519Key();
    const nodeId = randomUUID();
    const hostCertificate = proxy.ca.issueUserCertificate({
      user: nodeId,
      roles: [],
      logins: [nodeId],
      publicKey: key.publicKey,
      ttlMs: 60_000,
    });
    const { closed } = rawAgent(
      proxy,
      { nodeId, hostCertificate },
      ed25519PrivateKeyObject(key.privateKeyPem),
    );
    expect((await closed).reason).toMatch(/not signed by a trusted CA|expected a host certificate/);
  });

  it('refuses a signature made with another key than the certified one', async () => {
    const node = hostIdentity(proxy.ca);
    const impostor = ed25519PrivateKeyObject(generateEd25519Key().privateKeyPem);
    const { closed, messages } = rawAgent(proxy, node, impostor);
    expect(await closed).toEqual({
      code: 1008,
      reason: 'the signature does not match the host certificate',
    });
    expect(messages[0]).toHaveProperty('challenge');
    expect(proxy.registry.connected(node.nodeId)).toBe(false);
  });

  it('records heartbeats under the proven id, whatever id the agent writes in them', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    const forged = randomUUID();
    agent.socket.send(
      JSON.stringify({
        type: 'heartbeat',
        id: forged,
        tunnel: false,
        addr: '10.0.0.1:22',
        hostname: 'db-1',
        os: 'Linux 6.1',
        labels: { env: 'prod' },
        cmdLabels: {},
        hostPublicKey: '',
      }),
    );
    await eventually(
      () => proxy.heartbeats.some((h) => h.hostname === 'db-1'),
      3000,
      'the heartbeat',
    );
    expect(proxy.heartbeats.find((h) => h.hostname === 'db-1')).toMatchObject({
      id: node.nodeId,
      tunnel: true,
      addr: '',
    });
    expect(proxy.heartbeats.some((h) => h.id === forged)).toBe(false);
    agent.socket.close();
  });

  it('drops a heartbeat that comes sooner than half the pace it asked for, keeps the others', async () => {
    const paced = await startTunnelProxy({ heartbeatMs: 1000 });
    try {
      const node = hostIdentity(paced.ca);
      const agent = rawAgent(paced, node, node.privateKey);
      await eventually(() => isReady(agent), 3000, 'ready');
      const beat = (hostname: string) =>
        agent.socket.send(
          JSON.stringify({
            type: 'heartbeat',
            hostname,
            os: '',
            labels: {},
            cmdLabels: {},
            hostPublicKey: '',
          }),
        );
      beat('first');
      await eventually(() => paced.heartbeats.length === 1, 3000, 'the first heartbeat');
      // A beat a little early (timers drift) still counts; a burst right after it does not.
      await new Promise((resolve) => setTimeout(resolve, 600));
      beat('early');
      beat('burst');
      await eventually(() => paced.heartbeats.length === 2, 3000, 'the early heartbeat');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(paced.heartbeats.map((h) => h.hostname)).toEqual(['first', 'early']);
      agent.socket.close();
    } finally {
      await paced.close();
    }
  });

  it('tells the agent when a heartbeat is malformed', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    agent.socket.send(
      JSON.stringify({ type: 'heartbeat', hostname: '-bad-', os: '', labels: {}, cmdLabels: {} }),
    );
    await eventually(() => agent.messages.some((m) => m.type === 'error'), 3000, 'the error');
    expect(proxy.registry.connected(node.nodeId)).toBe(true);
    agent.socket.close();
  });

  it('refuses a data socket whose id names no pending dial', async () => {
    const socket = new WebSocket(
      `${proxy.url.replace('http', 'ws')}${agentPaths.dial('0'.repeat(32))}`,
    );
    socket.on('open', () => socket.send(JSON.stringify({ id: '0'.repeat(32) })));
    const code = await new Promise((resolve) => socket.on('close', resolve));
    expect(code).toBe(1008);
  });

  it('times out a dial the agent never answers, and refuses the late data socket', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    await expect(proxy.registry.dial({ kind: 'node', name: node.nodeId })).rejects.toThrow(
      /did not open the tunnel connection/,
    );
    const dial = agent.messages.find((m) => m.type === 'dial') as { id: string };
    const late = new WebSocket(`${proxy.url.replace('http', 'ws')}${agentPaths.dial(dial.id)}`);
    late.on('open', () => late.send(JSON.stringify({ id: dial.id })));
    expect(await new Promise((resolve) => late.on('close', resolve))).toBe(1008);
    agent.socket.close();
  });

  it('says a node with no tunnel is not connected', async () => {
    const nodeId = randomUUID();
    await expect(proxy.registry.dial({ kind: 'node', name: nodeId })).rejects.toThrow(
      `node ${nodeId} is not connected to this proxy`,
    );
  });

  it('replaces the older channel when an agent reconnects', async () => {
    const node = hostIdentity(proxy.ca);
    const first = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(first), 3000, 'ready');
    const second = rawAgent(proxy, node, node.privateKey);
    expect((await first.closed).code).toBe(1001);
    await eventually(() => isReady(second), 3000, 'ready');
    expect(proxy.registry.connected(node.nodeId)).toBe(true);
    // The registry's channel is the second one: a dial goes there.
    void proxy.registry.dial({ kind: 'node', name: node.nodeId }).catch(() => {});
    await eventually(() => second.messages.some((m) => m.type === 'dial'), 3000, 'the dial');
    second.socket.close();
  });

  it('dials an advertised service by {kind, name} and hands back its bytes', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    expect(agent.messages.find((m) => m.type === 'ready')).toMatchObject({
      version: tunnelProtocolVersion,
    });
    const service = { kind: 'node', name: node.nodeId };
    expect(proxy.registry.serves(service)).toBe(true);
    // The agent's side of the connection: an echo service, as a handler would be.
    agent.socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type?: string; id?: string };
      if (message.type !== 'dial') return;
      const dataSocket = new WebSocket(
        `${proxy.url.replace('http', 'ws')}${agentPaths.dial(message.id!)}`,
      );
      dataSocket.on('open', () => dataSocket.send(JSON.stringify({ id: message.id })));
      dataSocket.on('message', (bytes: Buffer) =>
        dataSocket.send(Buffer.concat([Buffer.from('echo:'), bytes])),
      );
    });
    const stream = await proxy.registry.dial(service);
    const answer = new Promise<string>((resolve) =>
      stream.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    stream.write('ping');
    expect(await answer).toBe('echo:ping');
    expect(agent.messages.find((m) => m.type === 'dial')).toMatchObject({ service });
    stream.destroy();
    agent.socket.close();
  });

  it('fails clearly when dialling a service no agent here advertised', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey, {
      hello: {
        version: tunnelProtocolVersion,
        nodeId: node.nodeId,
        hostCertificate: node.hostCertificate,
        // A kind this proxy does not know yet is ignored, not trusted.
        services: [
          { kind: 'node', name: node.nodeId },
          { kind: 'app', name: 'grafana' },
        ],
      },
    });
    await eventually(() => isReady(agent), 3000, 'ready');
    await expect(proxy.registry.dial({ kind: 'app', name: 'grafana' })).rejects.toThrow(
      'app grafana is not connected to this proxy',
    );
    const other = randomUUID();
    await expect(proxy.registry.dial({ kind: 'node', name: other })).rejects.toThrow(
      `node ${other} is not connected to this proxy`,
    );
    expect(agent.messages.some((m) => m.type === 'dial')).toBe(false);
    agent.socket.close();
  });

  it("reports an agent's refusal of a dial in the dial's error", async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey);
    await eventually(() => isReady(agent), 3000, 'ready');
    agent.socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type?: string; id?: string };
      if (message.type !== 'dial') return;
      agent.socket.send(
        JSON.stringify({ type: 'dialRefused', id: message.id, message: 'not served here' }),
      );
    });
    await expect(proxy.registry.dial({ kind: 'node', name: node.nodeId })).rejects.toThrow(
      `the agent of node ${node.nodeId} cannot open node ${node.nodeId}: not served here`,
    );
    expect(proxy.registry.connected(node.nodeId)).toBe(true);
    agent.socket.close();
  });

  it('refuses an agent that advertises the node service of another node', async () => {
    const node = hostIdentity(proxy.ca);
    const victim = randomUUID();
    const { closed } = rawAgent(proxy, node, node.privateKey, {
      hello: {
        version: tunnelProtocolVersion,
        nodeId: node.nodeId,
        hostCertificate: node.hostCertificate,
        services: [{ kind: 'node', name: victim }],
      },
    });
    expect((await closed).reason).toBe(
      `an agent serves only its own node (${node.nodeId}), not node ${victim}`,
    );
    expect(proxy.registry.serves({ kind: 'node', name: victim })).toBe(false);
  });

  it('refuses an agent of the previous protocol, naming both versions, and logs it', async () => {
    const node = hostIdentity(proxy.ca);
    // What agents sent before services: no version, no services.
    const { closed, messages } = rawAgent(proxy, node, node.privateKey, {
      hello: { nodeId: node.nodeId, hostCertificate: node.hostCertificate },
    });
    const why = 'agent speaks tunnel protocol 1, this proxy speaks 2: upgrade the agent';
    expect(await closed).toEqual({ code: 1008, reason: why });
    expect(messages).toEqual([{ type: 'error', message: why }]);
    expect(proxy.registry.connected(node.nodeId)).toBe(false);
    await eventually(() => proxy.logs.some((line) => line.includes(why)), 3000, 'the log line');
  });

  it('refuses an agent of a newer protocol, asking for the proxy to be upgraded', async () => {
    const node = hostIdentity(proxy.ca);
    const { closed } = rawAgent(proxy, node, node.privateKey, {
      hello: { version: 3, nodeId: node.nodeId, hostCertificate: node.hostCertificate },
    });
    expect((await closed).reason).toBe(
      'agent speaks tunnel protocol 3, this proxy speaks 2: upgrade the proxy',
    );
  });

  it('drops an agent that stops answering pings', async () => {
    const node = hostIdentity(proxy.ca);
    const agent = rawAgent(proxy, node, node.privateKey, { autoPong: false });
    await eventually(() => isReady(agent), 3000, 'ready');
    expect((await agent.closed).code).toBe(1006);
    await eventually(() => !proxy.registry.connected(node.nodeId), 3000, 'unregistered');
  });
});

describe('host certificate lifetime, proxy side', () => {
  it('drops an agent when its certificate ends, if it cannot renew it', async () => {
    const proxy = await startTunnelProxy();
    try {
      const key = generateEd25519Key();
      const nodeId = randomUUID();
      const hostCertificate = proxy.ca.issueHostCertificate({
        publicKey: key.publicKey,
        principals: [nodeId],
        hostId: nodeId,
        // Long enough to get in on a loaded machine, short enough to watch it end.
        ttlMs: 4000,
      });
      const agent = rawAgent(
        proxy,
        { nodeId, hostCertificate },
        ed25519PrivateKeyObject(key.privateKeyPem),
      );
      await eventually(() => isReady(agent), 3500, 'ready');
      expect(await agent.closed).toEqual({ code: 1001, reason: 'host certificate expired' });
      await eventually(() => !proxy.registry.connected(nodeId), 3000, 'unregistered');
    } finally {
      await proxy.close();
    }
  }, 15_000);

  it('sends a fresh certificate to an agent whose certificate is past half its life', async () => {
    const proxy = await startTunnelProxy({
      renewHostCertificate: (request) =>
        proxy.ca.issueHostCertificate({ ...request, hostId: request.nodeId, ttlMs: 3600_000 }),
    });
    try {
      const key = generateEd25519Key();
      const nodeId = randomUUID();
      const hostCertificate = proxy.ca.issueHostCertificate({
        publicKey: key.publicKey,
        principals: [nodeId],
        hostId: nodeId,
        ttlMs: 10 * 60_000,
        now: new Date(Date.now() - 8 * 60_000),
      });
      const agent = rawAgent(
        proxy,
        { nodeId, hostCertificate },
        ed25519PrivateKeyObject(key.privateKeyPem),
      );
      await eventually(() => agent.messages.some((m) => m.type === 'certificate'), 3000, 'renewal');
      const renewed = agent.messages.find((m) => m.type === 'certificate') as {
        hostCertificate: string;
      };
      const cert = parseCertificate(renewed.hostCertificate);
      expect(cert.type).toBe('host');
      expect(cert.principals).toEqual([nodeId]);
      expect(cert.validBefore.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
      agent.socket.close();
    } finally {
      await proxy.close();
    }
  });
});
