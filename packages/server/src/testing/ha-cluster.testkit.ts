import type { S3Client } from '@aws-sdk/client-s3';
import { terminalMessageTypes as T, type TerminalRequest } from '@postern/contracts';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TestSchemas, testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { ClusterCa } from '../ssh/ca.service.js';
import { startHaAgent, type HaAgent } from './ha-agent.testkit.js';
import { PosternProcess, runPostern, sleep } from './ha-process.testkit.js';
import { HaStorageKit, testLogin, type HaUser } from './ha-storage.testkit.js';
import { sharedSwift } from './shared-swift.testkit.js';
import { freePort, startSshd, type RunningSshd } from './sshd.testkit.js';
import { swiftS3Client, type SwiftCredentials } from './swift.testkit.js';
import { openTerminal, type TerminalClient } from './terminal-client.testkit.js';

export type { HaAgent } from './ha-agent.testkit.js';
export type { HaUser } from './ha-storage.testkit.js';

export interface HaClusterOptions {
  proxies: number;
  /** The storage schema (default: a fresh one, dropped by close()). */
  schema?: string;
  /** PostgreSQL for storage and audit (default: the machine's test database). */
  pgUrl?: string;
  /** `s3` (default): a bucket on the shared Swift, spooled in PostgreSQL; `dir`: each proxy's own. */
  recordings?: 's3' | 'dir';
  /** The S3 server (default: the vitest run's shared Swift; a Playwright spec passes its own). */
  swift?: SwiftCredentials;
  /** The bucket (default: a new one on the shared Swift; required with `swift`). */
  bucket?: string;
  /** Where the proxies reach S3 (default: the shared Swift; a tcp-relay's to cut it). */
  s3Endpoint?: string;
  /** Merged (deeply) over each proxy's config file. */
  extraConfig?: Record<string, unknown>;
  /** Starts a `postern agent` joined to the first proxy, with a tunnel to every proxy. */
  agent?: boolean;
  /** Starts a real OpenSSH sshd trusting the cluster's user CA, registered as an agentless node. */
  opensshNode?: boolean;
  /** Runs before the first proxy starts: roles, users, sessions written to a fresh schema. */
  beforeStart?: (storage: HaStorageKit) => Promise<void>;
}

export interface HaProxy {
  index: number;
  /** `http://127.0.0.1:PORT` (insecure_no_tls): the web listener, also its public address. */
  webUrl: string;
  /** `127.0.0.1:PORT`: the SSH proxy listener. */
  sshAddr: string;
  dataDir: string;
  /** Its config file, for admin commands (`postern verify … --config`). */
  configFile: string;
  /** The running process's id; undefined while it is stopped. */
  readonly pid: number | undefined;
  running(): boolean;
  /** Everything it logged (JSON lines), every run. */
  logs(): string;
  /** Sends `signal` (default SIGKILL) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops it (SIGTERM) if running and starts it again: same config, ports and data dir. */
  restart(): Promise<void>;
  /** Polls `/readyz` until it answers 200. */
  ready(timeoutMs?: number): Promise<void>;
}

export interface HaCluster extends HaStorageKit {
  proxies: HaProxy[];
  schema: string;
  pgUrl: string;
  /** Set with `recordings: 's3'`. */
  bucket: string | undefined;
  /** A client of the shared Swift itself (never through the test's relay). */
  s3: S3Client | undefined;
  swift: SwiftCredentials | undefined;
  agent: HaAgent | undefined;
  /** With `opensshNode`: the sshd and its node id, which every proxy dials itself. */
  opensshNode: { nodeId: string; sshd: RunningSshd } | undefined;
  /** A browser terminal through `proxy` (default: a login shell on the agent's node). */
  openTerminal(
    proxy: HaProxy,
    user: HaUser,
    params?: Partial<TerminalRequest>,
  ): Promise<TerminalClient>;
  /** Every process's output, for a failing test to print. */
  logs(): string;
  close(): Promise<void>;
}

export const haClusterName = 'ha-test';
const servingLine = /Postern is serving the console/;

/**
 * Several real `postern start` processes on one PostgreSQL schema (state and audit) and, by
 * default, one S3 bucket for recordings: a high-availability cluster on loopback, without a load
 * balancer (tests pick the proxy). Ports are chosen up front so a restarted proxy keeps them.
 * Build the server first (`npx tsc -b packages/server`).
 */
export async function startHaCluster(options: HaClusterOptions): Promise<HaCluster> {
  const pgUrl = options.pgUrl ?? testPostgresUrl;
  const schemas = !options.schema && pgUrl === testPostgresUrl ? new TestSchemas() : undefined;
  await schemas?.connect();
  const schema = options.schema ?? schemas?.newName() ?? `postern_ha_${Date.now().toString(36)}`;
  const storage = new HaStorageKit({ type: 'postgres', url: pgUrl, schema }, haClusterName);
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-ha-'));
  const proxies: ProxyProcess[] = [];
  let agent: HaAgent | undefined;
  let opensshNode: HaCluster['opensshNode'];
  let s3: S3Client | undefined;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      await agent?.kill('SIGKILL');
      await opensshNode?.sshd.stop();
      await Promise.all(proxies.map((proxy) => proxy.kill('SIGKILL')));
      s3?.destroy();
      await schemas?.dropAll();
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    })());
  try {
    const s3Wanted = options.recordings !== 'dir';
    const shared = s3Wanted && !options.swift ? await sharedSwift() : undefined;
    const swift = s3Wanted ? (options.swift ?? shared) : undefined;
    const bucket = swift && (options.bucket ?? (await shared?.newBucket('ha')));
    if (swift && !bucket) throw new Error('startHaCluster: name the bucket of your own Swift');
    s3 = swift && swiftS3Client(swift);
    const recordings = swift
      ? {
          type: 's3',
          bucket,
          endpoint: options.s3Endpoint ?? swift.endpoint,
          region: swift.region,
          path_style: true,
          credentials: {
            access_key_id: swift.accessKeyId,
            secret_access_key: swift.secretAccessKey,
          },
          spool_flush_interval: '1s',
        }
      : {};
    const ports = await distinctFreePorts(options.proxies * 2);
    for (let index = 0; index < options.proxies; index++) {
      const webAddr = `127.0.0.1:${ports[index * 2]}`;
      const sshAddr = `127.0.0.1:${ports[index * 2 + 1]}`;
      const config = merge(
        {
          cluster_name: haClusterName,
          web_addr: webAddr,
          ssh_addr: sshAddr,
          // Each its own, as agents must reach every proxy (docs/high-availability.md).
          public_addr: webAddr,
          insecure_no_tls: true,
          storage: storage.storage,
          // This host as a server is per proxy: the agent's node is the one every proxy reaches.
          ssh_service: { enabled: false },
          proxy_ttl: '3s',
          shutdown_grace: '5s',
          recordings,
          log: { level: 'info', format: 'json' },
        },
        options.extraConfig ?? {},
      );
      const dataDir = path.join(dir, `proxy-${index}`);
      await mkdir(dataDir, { recursive: true });
      const configFile = path.join(dir, `proxy-${index}.yaml`);
      // JSON is YAML.
      await writeFile(configFile, JSON.stringify(config, null, 2));
      proxies.push(new ProxyProcess(index, webAddr, sshAddr, dataDir, configFile));
    }
    await options.beforeStart?.(storage);
    // The first alone creates the schema's tables; the others then start together.
    await proxies[0]?.start();
    await Promise.all(proxies.slice(1).map((proxy) => proxy.start()));
    await Promise.all(proxies.map((proxy) => proxy.ready()));
    if (options.agent) {
      const token = await storage.joinToken();
      agent = await startHaAgent(path.join(dir, 'agent'), proxies[0]!.webUrl, token);
      await Promise.all(proxies.map((proxy) => agent!.tunnelUp(proxy.webUrl)));
    }
    if (options.opensshNode) opensshNode = await startOpensshNode(storage, proxies[0]!);
    return Object.assign(storage, {
      proxies,
      opensshNode,
      schema,
      pgUrl,
      bucket,
      s3,
      swift,
      agent,
      openTerminal: (proxy: HaProxy, user: HaUser, params: Partial<TerminalRequest> = {}) =>
        openTerminal({
          baseUrl: proxy.webUrl,
          headers: user.headers,
          params: {
            term: { w: 100, h: 30 },
            server_id: agent?.nodeId ?? '',
            login: testLogin,
            ...params,
          },
        }),
      logs: () =>
        [...proxies.map((proxy) => proxy.describe()), agent ? `agent:\n${agent.logs()}` : '']
          .join('\n')
          .slice(-60_000),
      close,
    });
  } catch (error) {
    const logs = proxies.map((proxy) => proxy.describe()).join('\n');
    await close();
    throw new Error(
      `the HA cluster did not start: ${(error as Error).message}\n${logs.slice(-8000)}`,
    );
  }
}

/** A real sshd trusting the cluster's user CA, added with `postern nodes add` as an admin would. */
async function startOpensshNode(storage: HaStorageKit, first: ProxyProcess) {
  const ca = await storage.withBackend((backend) => ClusterCa.loadOrCreate(backend, haClusterName));
  const sshd = await startSshd({ trustedUserCaKeys: ca.trustedUserCaKeysLine() });
  const addr = `127.0.0.1:${sshd.port}`;
  const added = await runPostern([
    ...['nodes', 'add', '--name', 'openssh-node', '--addr', addr],
    ...['--config', first.configFile, '--data-dir', first.dataDir],
  ]);
  const nodeId = /\(([0-9a-f-]{36})\)/.exec(added.output)?.[1];
  if (added.code !== 0 || !nodeId) {
    await sshd.stop();
    throw new Error(`postern nodes add failed: ${added.output}`);
  }
  return { nodeId, sshd };
}

/** The session id of a terminal, from its first session data frame (waited for). */
export async function terminalSessionId(client: TerminalClient): Promise<string> {
  const frame = () => client.frames.find((f) => f.type === T.sessionData);
  await client.waitFor(() => frame() !== undefined, 'the session data frame', 15_000);
  return (JSON.parse(frame()!.payload) as { session: { id: string } }).session.id;
}

class ProxyProcess implements HaProxy {
  readonly webUrl: string;
  private readonly process: PosternProcess;

  constructor(
    readonly index: number,
    webAddr: string,
    readonly sshAddr: string,
    readonly dataDir: string,
    readonly configFile: string,
  ) {
    this.webUrl = `http://${webAddr}`;
    this.process = new PosternProcess(`proxy ${index}`, [
      ...['start', '--config', configFile, '--data-dir', dataDir],
    ]);
  }

  get pid() {
    return this.process.pid;
  }

  running = () => this.process.running();
  logs = () => this.process.logs();
  start = () => this.process.start(servingLine);
  kill = (signal: NodeJS.Signals = 'SIGKILL') => this.process.kill(signal);

  async restart(): Promise<void> {
    await this.process.stop();
    await this.start();
  }

  async ready(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const answer = await fetch(`${this.webUrl}/readyz`, { signal: AbortSignal.timeout(3000) });
        if (answer.status === 200) return;
        last = `${answer.status} ${await answer.text()}`;
      } catch (error) {
        last = (error as Error).message;
      }
      if (!this.running()) {
        throw new Error(`proxy ${this.index} is not running:\n${this.logs().slice(-6000)}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`proxy ${this.index} not ready after ${timeoutMs} ms: ${last}`);
      }
      await sleep(100);
    }
  }

  describe(): string {
    return `proxy ${this.index} (${this.webUrl}):\n${this.logs().slice(-15_000)}`;
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** `extra` over `base`, objects merged key by key, anything else replaced. */
function merge(
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const under = out[key];
    out[key] = isPlainObject(under) && isPlainObject(value) ? merge(under, value) : value;
  }
  return out;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
