import type { TrustedClusterItem } from '@postern/contracts';
import { agentPaths } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import type { AgentLog } from '../../agent/tunnel-client.js';
import { TunnelSet } from '../../agent/tunnel-set.js';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import { readWithRevision } from '../../backend/revisioned-store.js';
import { leafTunnelId } from '../tunnel/tunnel-protocol.js';
import type { ClusterKey } from './cluster-keys.js';
import type { LeafReport } from './remote-clusters.js';
import { rootBaseUrl } from './root-client.js';
import {
  trustedClustersPrefix,
  type StoredTrustedCluster,
  type TrustedClustersStore,
} from './trusted-clusters.store.js';

interface Link {
  /** A tunnel to every proxy of the root, so whichever proxy a user reaches can forward. */
  client: TunnelSet;
  /** What the link was made from: another address or certificate makes another link. */
  signature: string;
  /** Why the last attempt failed, until one succeeds. */
  problem: { lastError?: string };
  /** The root's user CA keys, as its tunnel last said: root users' certificates are signed so. */
  root: { userCaKeys?: string[] };
}

export interface LeafLinksOptions {
  backend: Backend;
  store: TrustedClustersStore;
  clusterName: string;
  key: () => Promise<ClusterKey>;
  /** Takes each connection a root opens through the tunnel (HTTP to this cluster's API). */
  serve: (stream: Duplex, root: string) => void;
  /** What this cluster tells its roots on each heartbeat. */
  report: () => LeafReport;
  insecure: boolean;
  heartbeatMs: number;
  log: AgentLog;
}

/**
 * This (leaf) cluster's tunnels to the roots it trusts: one per enabled trusted cluster that its
 * root accepted, kept by every proxy of the leaf (the root dials whichever it reaches), and
 * remade when the resource changes on any proxy (a watch over `/trusted_clusters/`).
 */
export class LeafLinks {
  private readonly links = new Map<string, Link>();
  private readonly cache: WatchedCache<StoredTrustedCluster>;
  private syncing = Promise.resolve();

  constructor(private readonly options: LeafLinksOptions) {
    this.cache = new WatchedCache(options.backend, {
      prefix: trustedClustersPrefix,
      parse: (item) => readWithRevision<StoredTrustedCluster>(item),
      onError: (error) => options.log.warn({ err: error }, 'watching trusted clusters failed'),
    });
    const resync = () => {
      this.syncing = this.syncing.then(() => this.sync());
    };
    this.cache.on('put', resync);
    this.cache.on('delete', resync);
  }

  async start(): Promise<void> {
    await this.cache.start();
    await this.sync();
  }

  async close(): Promise<void> {
    await this.cache.close();
    await this.syncing;
    await Promise.all([...this.links.values()].map((link) => link.client.stop()));
    this.links.clear();
  }

  status(name: string): TrustedClusterItem['status'] {
    const resource = this.cache.get(name);
    if (resource && !resource.spec.enabled) return { state: 'disabled' };
    const link = this.links.get(name);
    if (!link) return undefined;
    if (link.client.connected) return { state: 'connected' };
    const error = link.problem.lastError;
    return { state: 'connecting', ...(error ? { error } : {}) };
  }

  /** The user CA keys `root` gave on its tunnel, once it is up. */
  rootUserCaKeys(root: string): string[] | undefined {
    return this.links.get(root)?.root.userCaKeys;
  }

  private async sync(): Promise<void> {
    const wanted = new Map(
      this.cache
        .values()
        .filter((tc) => tc.spec.enabled && tc.trust)
        .map((tc) => [tc.metadata.name, tc] as const),
    );
    for (const [name, link] of this.links) {
      const tc = wanted.get(name);
      if (!tc || signatureOf(tc) !== link.signature) {
        this.links.delete(name);
        await link.client.stop();
      }
    }
    for (const [name, tc] of wanted) {
      if (!this.links.has(name)) this.links.set(name, await this.open(tc));
    }
  }

  private async open(tc: StoredTrustedCluster): Promise<Link> {
    const { options } = this;
    const key = await options.key();
    const name = tc.metadata.name;
    let certificate = tc.trust!.hostCertificate;
    const problem: Link['problem'] = {};
    const root: Link['root'] = {};
    // A refusal (logged as an error) says more than the "reconnecting" that follows it: it stays
    // until the root lets the tunnel in again.
    let refused = false;
    const remember = (msg: string, isRefusal: boolean) => {
      if (refused && !isRefusal) return;
      refused = isRefusal;
      problem.lastError = msg;
    };
    const log: AgentLog = {
      info: (obj, msg) => options.log.info({ ...obj, root: name }, msg),
      warn: (obj, msg) => {
        remember(msg, false);
        options.log.warn({ ...obj, root: name }, msg);
      },
      error: (obj, msg) => {
        remember(msg, true);
        options.log.error({ ...obj, root: name }, msg);
      },
    };
    const client = new TunnelSet(
      {
        controlPath: agentPaths.trustedClusterTunnel,
        insecure: options.insecure,
        nodeId: leafTunnelId(options.clusterName),
        hostCertificate: () => certificate,
        hostKey: key.privateKey,
        heartbeatMs: options.heartbeatMs,
        heartbeat: () => {
          const beat = {
            hostname: options.clusterName,
            os: '',
            labels: {},
            cmdLabels: {},
            hostPublicKey: key.openSsh,
            cluster: options.report(),
          };
          return beat;
        },
        services: [
          {
            service: { kind: 'cluster', name: options.clusterName },
            handle: (stream) => options.serve(stream, name),
          },
        ],
        onReady: (userCaKeys) => {
          if (userCaKeys?.length) root.userCaKeys = userCaKeys;
          refused = false;
          delete problem.lastError;
        },
        onCertificate: (renewed) => {
          certificate = renewed;
          void this.keepCertificate(name, renewed);
        },
        log,
      },
      rootBaseUrl(tc.spec.web_proxy_addr),
    );
    client.start();
    return { client, signature: signatureOf(tc), problem, root };
  }

  /** A renewed tunnel certificate is kept with the resource, so a restart still has it. */
  private async keepCertificate(name: string, hostCertificate: string): Promise<void> {
    try {
      const current = await this.options.store.get(name);
      if (!current?.trust) return;
      const trust = { ...current.trust, hostCertificate };
      await this.options.store.update({ ...current, trust }, current.metadata.revision);
    } catch (error) {
      this.options.log.warn(
        { err: error, root: name },
        'keeping a renewed tunnel certificate failed',
      );
    }
  }
}

/** The link's inputs; the certificate changes on renewal only through this link, so not it. */
const signatureOf = (tc: StoredTrustedCluster) =>
  `${tc.spec.web_proxy_addr}\n${tc.trust?.validatedAt ?? ''}`;
