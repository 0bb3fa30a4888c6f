import { describe, expect, it } from 'vitest';
import { eventually, startTunnelProxy } from '../../agent/tunnel-proxy.testkit.js';
import { hostIdentity, isReady, rawAgent } from './raw-agent.testkit.js';
import { agentTunnelDraining } from './tunnel-protocol.js';

describe('agent tunnels of a proxy that drains before it stops', () => {
  it('tells every connected agent, keeps their tunnels, and refuses new agents', async () => {
    const proxy = await startTunnelProxy({ pingIntervalMs: 200 });
    try {
      const node = hostIdentity(proxy.ca);
      const agent = rawAgent(proxy, node, node.privateKey);
      await eventually(() => isReady(agent), 3000, 'ready');
      proxy.registry.drain();
      await eventually(
        () => agent.messages.some((m) => m.type === 'draining'),
        3000,
        'the draining frame',
      );
      // Its live connections ride on it: the tunnel stays until the proxy closes.
      expect(proxy.registry.connected(node.nodeId)).toBe(true);

      const late = hostIdentity(proxy.ca);
      const refused = rawAgent(proxy, late, late.privateKey);
      expect(await refused.closed).toEqual({ code: 1008, reason: agentTunnelDraining });
      expect(refused.messages).toEqual([{ type: 'error', message: agentTunnelDraining }]);
      expect(proxy.registry.connected(late.nodeId)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});
