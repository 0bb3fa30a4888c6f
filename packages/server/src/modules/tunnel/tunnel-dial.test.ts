import { randomUUID } from 'node:crypto';
import { agentPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  eventually,
  startTunnelProxy,
  type TunnelProxy,
} from '../../agent/tunnel-proxy.testkit.js';
import { tunnelProtocolVersion } from './tunnel-protocol.js';
import { hostIdentity, isReady, rawAgent } from './raw-agent.testkit.js';

describe('dialling through an agent tunnel, proxy side', () => {
  let proxy: TunnelProxy;
  beforeAll(async () => {
    proxy = await startTunnelProxy({ dialTimeoutMs: 300, pingIntervalMs: 200 });
  });
  afterAll(() => proxy.close());

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
});
