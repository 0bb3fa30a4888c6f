import { startLocalNode } from './local-node.js';
import { OpenSshReachability } from './nodes/reachability.js';
import { startSshProxy } from './ssh-proxy/start-ssh-proxy.js';
import type { WingListener } from '../wing.js';
import type { ServersServices } from './index.js';

/**
 * What `postern start` runs for servers: the SSH proxy listener (plain `ssh`, `scp`, `sftp`),
 * this host served as a server (`ssh_service`), and the check that agentless hosts still answer.
 */
export const serversListeners: readonly WingListener<ServersServices>[] = [
  {
    name: 'ssh',
    start: async (s, ctx) => {
      const proxy = await startSshProxy({
        config: ctx.config,
        ca: ctx.ca,
        nodes: s.nodeDirectory,
        terminals: s.terminals,
        access: ctx.access,
        locks: ctx.locks,
        audit: ctx.audit,
        recordings: ctx.recordings,
        backend: ctx.backend,
        clusterSsh: ctx.clusterSsh,
        now: Date.now,
        log: (message, fields) => ctx.log('info', message, fields),
      });
      return { address: proxy.address, stop: proxy.stop };
    },
  },
  {
    name: 'ssh_service',
    enabled: (ctx) => ctx.config.sshService.enabled,
    start: async (s, ctx) => {
      const node = await startLocalNode({
        config: ctx.config.sshService,
        dataDir: ctx.config.dataDir,
        ca: ctx.ca,
        inventory: s.inventory,
        locks: ctx.locks,
        log: (message, fields) => ctx.log('info', message, fields),
      });
      ctx.log('info', 'serving this host as a server', { nodeId: node.id, port: node.port });
      return { servesThisHost: true, stop: node.stop };
    },
  },
  {
    name: 'openssh_reachability',
    start: async (s, ctx) => {
      const reachability = new OpenSshReachability(s.inventory, {
        intervalMs: ctx.config.opensshCheckIntervalMs,
        log: (message, fields) => ctx.log('warn', message, fields),
      });
      reachability.start();
      return { stop: async () => reachability.stop() };
    },
  },
];
