import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../backend/memory.js';
import {
  eventually,
  startTunnelProxy,
  type TunnelProxy,
} from '../../agent/tunnel-proxy.testkit.js';
import { ClusterCa } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../../ssh/keys.js';
import { tunnelProtocolVersion } from './tunnel-protocol.js';
import { hostIdentity, isReady, rawAgent } from './raw-agent.testkit.js';

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
        addr: '127.0.0.21:22',
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

  it("refuses an agent that advertises a leaf cluster's service", async () => {
    const node = hostIdentity(proxy.ca);
    const { closed } = rawAgent(proxy, node, node.privateKey, {
      hello: {
        version: tunnelProtocolVersion,
        nodeId: node.nodeId,
        hostCertificate: node.hostCertificate,
        services: [{ kind: 'cluster', name: 'leaf' }],
      },
    });
    expect((await closed).reason).toBe(
      "a leaf cluster's tunnel serves only its own cluster, not leaf",
    );
    expect(proxy.registry.serves({ kind: 'cluster', name: 'leaf' })).toBe(false);
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
