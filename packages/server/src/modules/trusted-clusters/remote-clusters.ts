import type { ClusterJson } from '@postern/contracts';
import { z } from 'zod';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import type { Clock } from '../../clock.js';
import type { AgentHeartbeats } from '../tunnel/control-socket.js';
import { leafNameOf, leafTunnelId } from '../tunnel/tunnel-protocol.js';
import type { TunnelRegistry } from '../tunnel/tunnel-registry.js';
import {
  remoteClustersPrefix,
  RemoteClustersStore,
  type RemoteCluster,
} from './remote-clusters.store.js';

/** A leaf heard within this many heartbeats counts as online on every proxy. */
const onlineWithinBeats = 3;

/**
 * The root's leaves as every proxy sees them: a watched copy of the remote clusters (so the
 * tunnel's admission, the clusters list and forwarding read memory), what their heartbeats
 * record, and the tunnels of leaves no longer trusted closed at once.
 */
/** What a leaf's heartbeat says of itself (beside the fields every agent's heartbeat has). */
const leafReportSchema = z.object({
  nodeCount: z.number().int().nonnegative().max(10_000_000),
  publicURL: z.string().max(512),
  version: z.string().max(64),
  /**
   * The leaf's host CA keys: a root user's `ssh` checks the leaf's servers against them, for
   * names under the leaf (`*.<leaf>`) only. Absent from leaves older than SSH through the root.
   */
  hostCaKeys: z
    .array(z.string().regex(/^ssh-ed25519 [A-Za-z0-9+/=]{1,512}$/))
    .max(4)
    .optional(),
});
export type LeafReport = z.infer<typeof leafReportSchema>;

type Beat = { name: string; at: string; report: LeafReport };

export class RemoteClusters implements AgentHeartbeats<Beat> {
  readonly store: RemoteClustersStore;
  private readonly cache: WatchedCache<RemoteCluster>;

  constructor(
    backend: Backend,
    private readonly options: {
      registry: TunnelRegistry;
      now: Clock;
      heartbeatMs: number;
      onError: (error: unknown) => void;
    },
  ) {
    this.store = new RemoteClustersStore(backend);
    this.cache = new WatchedCache(backend, {
      prefix: remoteClustersPrefix,
      parse: (item) => JSON.parse(item.value) as RemoteCluster,
      onError: options.onError,
    });
    this.cache.on('delete', (name: string) =>
      options.registry.disconnect(leafTunnelId(name), `cluster ${name} is no longer trusted`),
    );
  }

  start(): Promise<void> {
    return this.cache.start();
  }

  close(): Promise<void> {
    return this.cache.close();
  }

  get(name: string): RemoteCluster | undefined {
    return this.cache.get(name);
  }

  /** The tunnel's admission: the id must be a trusted leaf's, proven with the key it registered. */
  admit(nodeId: string, certifiedKey: string): string | undefined {
    const name = leafNameOf(nodeId) ?? '';
    const leaf = this.cache.get(name);
    if (!leaf) return `cluster ${name || nodeId} is not trusted here`;
    if (leaf.publicKey !== certifiedKey)
      return `cluster ${name} proved another key than it registered`;
    return undefined;
  }

  /** Whether a tunnel of the leaf reaches this proxy now. */
  reachable(name: string): boolean {
    return this.options.registry.serves({ kind: 'cluster', name });
  }

  /** The leaf whose name ends `host` (`web-1.lab.example.com` → `lab.example.com`), if any. */
  leafUnder(host: string): string | undefined {
    const lower = host.toLowerCase();
    return this.cache
      .values()
      .map((leaf) => leaf.name)
      .filter((name) => lower.endsWith(`.${name.toLowerCase()}`))
      .sort((a, b) => b.length - a.length)[0];
  }

  /**
   * known_hosts lines that trust each leaf's host CA for the names under that leaf only, so a
   * leaf can vouch for its own servers and for nothing else (`postern login` writes them).
   */
  hostSigners(): string[] {
    return this.cache
      .values()
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((leaf) =>
        (leaf.report?.hostCaKeys ?? []).map(
          (key) => `@cert-authority *.${leaf.name} ${key} postern-host-ca@${leaf.name}`,
        ),
      );
  }

  /** The leaves as `GET /sites` lists them after the root, by name. */
  list(): ClusterJson[] {
    const now = this.options.now();
    return this.cache
      .values()
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((leaf) => {
        const heard = leaf.lastHeartbeat ? Date.parse(leaf.lastHeartbeat) : 0;
        const online =
          this.reachable(leaf.name) || now - heard < onlineWithinBeats * this.options.heartbeatMs;
        return {
          name: leaf.name,
          lastConnected: leaf.lastHeartbeat ?? leaf.created,
          status: online ? ('online' as const) : ('offline' as const),
          nodeCount: leaf.report?.nodeCount ?? 0,
          publicURL: leaf.report?.publicURL ?? '',
          authVersion: leaf.report?.version ?? '',
          proxyVersion: leaf.report?.version ?? '',
        };
      });
  }

  read(
    nodeId: string,
    frame: Record<string, unknown>,
  ): { ok: true; value: Beat } | { ok: false; why: string } {
    const name = leafNameOf(nodeId) ?? '';
    if (!this.cache.get(name)) return { ok: false, why: `cluster ${name} is not trusted here` };
    const report = leafReportSchema.safeParse(frame.cluster);
    if (!report.success)
      return { ok: false, why: 'expected cluster: {nodeCount, publicURL, version}' };
    const at = new Date(this.options.now()).toISOString();
    return { ok: true, value: { name, at, report: report.data } };
  }

  async record({ name, at, report }: Beat): Promise<void> {
    const leaf = await this.store.get(name);
    if (leaf) await this.store.put({ ...leaf, lastHeartbeat: at, report });
  }
}
