import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import websocket from '@fastify/websocket';
import { createJoinTokenRequestSchema } from '@postern/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { MemoryBackend } from '../backend/memory.js';
import { resolveConfig } from '../config/config.js';
import { hostActor } from '../access-control/access/actor.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import { AgentJoinService } from '../wings/servers/join-tokens/agent-join.service.js';
import { publicBaseUrl } from '../config/public-url.js';
import { agentNodeHeartbeats } from '../wings/servers/nodes/agent-heartbeats.js';
import { joinTokensRoutes } from '../wings/servers/join-tokens/join-tokens.routes.js';
import { JoinTokensService } from '../modules/join-tokens/join-tokens.service.js';
import { JoinTokensStore } from '../modules/join-tokens/join-tokens.store.js';
import { InventoryService } from '../wings/servers/nodes/inventory.service.js';
import type { NodeHeartbeat } from '../wings/servers/nodes/node-records.js';
import { tunnelRoutes, type TunnelRoutesOptions } from '../modules/tunnel/tunnel.routes.js';
import { TunnelRegistry } from '../modules/tunnel/tunnel-registry.js';
import { installErrorHandler } from '../plugins/error-handler.js';
import { installRateLimit } from '../plugins/rate-limit.js';
import { ClusterCa } from '../ssh/ca.service.js';
import { createSelfSigned } from '../tls/self-signed.js';
import type { AgentLog } from './tunnel-client.js';

export interface TunnelProxy {
  /** http://127.0.0.1:PORT, or https:// with `selfSignedTls`. */
  url: string;
  app: FastifyInstance;
  registry: TunnelRegistry;
  ca: ClusterCa;
  inventory: InventoryService;
  /** Every heartbeat the tunnel handed on, in order. */
  heartbeats: NodeHeartbeat[];
  /** The proxy's log lines (JSON) at warn and above. */
  logs: string[];
  newJoinToken(): Promise<string>;
  /** Ends the proxy's side of every agent control socket, as a crashed proxy process would. */
  dropControlSockets(): void;
  close(): Promise<void>;
}

export type TunnelProxyOptions = Partial<
  Pick<
    TunnelRoutesOptions,
    'pingIntervalMs' | 'authTimeoutMs' | 'renewHostCertificate' | 'heartbeatMs'
  >
> & {
  dialTimeoutMs?: number;
  /** Serve HTTPS with a fresh self-signed certificate, as `postern start` does by default. */
  selfSignedTls?: boolean;
};

/**
 * A small real proxy for tunnel tests, listening on 127.0.0.1 over plain HTTP: the real join
 * route (tokens, inventory, CA, a SQLite audit log in a temp dir) and the real tunnel routes.
 */
export async function startTunnelProxy(options: TunnelProxyOptions = {}): Promise<TunnelProxy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-tunnel-'));
  const backend = new MemoryBackend();
  const audit: AuditStore = await openAuditStore(
    { type: 'sqlite', path: path.join(dir, 'audit.db') },
    'test-cluster',
  );
  const ca = await ClusterCa.loadOrCreate(backend, 'test-cluster');
  const inventory = new InventoryService(backend, audit);
  await inventory.start();
  const tokens = new JoinTokensService(new JoinTokensStore(backend), audit, Date.now);
  const agentJoin = new AgentJoinService({
    tokens,
    inventory,
    ca,
    audit,
    clusterName: 'test-cluster',
  });
  const registry = new TunnelRegistry({ dialTimeoutMs: options.dialTimeoutMs });
  const heartbeats: NodeHeartbeat[] = [];

  const https = options.selfSignedTls ? await createSelfSigned([]) : null;
  const logs: string[] = [];
  const logger = { level: 'warn', stream: { write: (line: string) => logs.push(line) } };
  const app = Fastify({ logger, https }) as unknown as FastifyInstance;
  installErrorHandler(app);
  await installRateLimit(app);
  await app.register(websocket);
  const config = resolveConfig({
    dataDir: dir,
    clusterName: 'test-cluster',
    publicAddr: '127.0.0.1:3080',
  });
  await app.register(joinTokensRoutes, {
    joinTokens: tokens,
    agentJoin,
    publicBaseUrl: () => publicBaseUrl(config),
    rateLimit: { max: 10_000, timeWindow: 60_000 },
  });
  await app.register(tunnelRoutes, {
    registry,
    hostCaPublicKeys: () => [ca.hostCaPublicKey],
    userCaPublicKeys: () => [ca.userCaPublicKey],
    heartbeats: agentNodeHeartbeats(async (heartbeat) => {
      heartbeats.push(heartbeat);
      await inventory.heartbeat(heartbeat);
    }),
    pingIntervalMs: options.pingIntervalMs,
    authTimeoutMs: options.authTimeoutMs,
    renewHostCertificate: options.renewHostCertificate,
    heartbeatMs: options.heartbeatMs,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `${https ? 'https' : 'http'}://127.0.0.1:${port}`,
    app,
    registry,
    ca,
    inventory,
    heartbeats,
    logs,
    newJoinToken: async () => {
      const request = createJoinTokenRequestSchema.parse({ roles: ['Node'] });
      return (await tokens.create(request, hostActor('test'))).token;
    },
    dropControlSockets: () => {
      for (const client of app.websocketServer.clients) client.terminate();
    },
    close: async () => {
      registry.close();
      await app.close();
      await inventory.close();
      await audit.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A logger that keeps what it is told, so tests can assert on reconnects and refusals. */
export function recordingLog(): AgentLog & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (obj: object, msg: string) => {
    lines.push(`${level}: ${msg} ${JSON.stringify(obj)}`);
  };
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** Polls until `check` holds (real sockets take their time), or fails after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
