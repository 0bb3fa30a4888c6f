import { NotFoundError, type Backend } from '../../backend/index.js';

export const remoteClustersPrefix = '/remote_clusters/';

/** A leaf cluster this (root) cluster trusts: what it proved itself with, and when it was seen. */
export interface RemoteCluster {
  name: string;
  /** The leaf's tunnel key (OpenSSH line) the root certified; another key is another cluster. */
  publicKey: string;
  created: string;
  /** When a proxy last heard the leaf's tunnel (its heartbeat); absent until it connects. */
  lastHeartbeat?: string;
  /** What its last heartbeat said of it: its server count, address, version and host CA keys. */
  report?: { nodeCount: number; publicURL: string; version: string; hostCaKeys?: string[] };
}

/** Leaf clusters under `/remote_clusters/<name>` (the reference calls them remote clusters). */
export class RemoteClustersStore {
  constructor(private readonly backend: Backend) {}

  async get(name: string): Promise<RemoteCluster | null> {
    const item = await this.backend.get(remoteClustersPrefix + name);
    return item ? (JSON.parse(item.value) as RemoteCluster) : null;
  }

  async list(): Promise<RemoteCluster[]> {
    const { items } = await this.backend.list({ prefix: remoteClustersPrefix });
    return items.map((item) => JSON.parse(item.value) as RemoteCluster);
  }

  async put(cluster: RemoteCluster): Promise<void> {
    await this.backend.upsert({
      key: remoteClustersPrefix + cluster.name,
      value: JSON.stringify(cluster),
    });
  }

  /** False when there was none. */
  async delete(name: string): Promise<boolean> {
    try {
      await this.backend.delete(remoteClustersPrefix + name);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }
}
