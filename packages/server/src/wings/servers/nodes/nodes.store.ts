import type { NodeSubKind } from '@postern/contracts';
import {
  AlreadyExistsError,
  CompareFailedError,
  isUuid,
  NotFoundError,
  type Backend,
  type Item,
} from '../../../backend/index.js';
import { ApiError, notFound } from '../../../errors.js';

export const nodesPrefix = '/nodes/';
export const heartbeatsPrefix = '/node_heartbeats/';

/** A command label as the node reports it: what it runs, how often, and the last output. */
export interface CommandLabel {
  command: string[];
  period: string;
  result: string;
}

/**
 * How the proxy came to trust `hostPublicKey`: it signed a host certificate for it at join
 * ('certificate'), it pinned the key on first use of an agentless host ('pinned'), or the node
 * service reported it over its own authenticated channel ('reported'). '' while unknown.
 */
export type HostKeySource = 'certificate' | 'pinned' | 'reported' | '';

/** A server as stored under `/nodes/<uuid>`, in the reference's resource layout. */
export interface NodeResource {
  kind: 'node';
  version: 'v2';
  metadata: {
    name: string;
    /** Static labels. */
    labels: Record<string, string>;
    /** RFC 3339: when a heartbeat-driven record is collected if no heartbeat refreshes it. */
    expires?: string;
  };
  spec: {
    hostname: string;
    /** host:port the proxy dials; '' for tunnel nodes. */
    addr: string;
    subKind: NodeSubKind;
    tunnel: boolean;
    os: string;
    cmdLabels: Record<string, CommandLabel>;
    /** An OpenSSH public key line (type and base64, no comment); '' while unknown. */
    hostPublicKey: string;
    hostKeySource: HostKeySource;
    /**
     * Labels the join token gave the node (suggested labels and the resource id). They are kept
     * over whatever labels the agent reports later, since an administrator chose them.
     */
    joinLabels?: Record<string, string>;
    /** RFC 3339 of the heartbeat that last rewrote this record; '' if none yet. */
    lastHeartbeat?: string;
  };
}

/** The short-lived "online" marker under `/node_heartbeats/<uuid>`. */
export interface HeartbeatRecord {
  /** RFC 3339: when the node last reported. */
  time: string;
  /** RFC 3339: when the node counts as offline without another heartbeat. */
  expires: string;
}

export interface StoredNode {
  node: NodeResource;
  revision: string;
}

export const nodeNotFound = (id: string) => notFound(`server ${id} not found`);

/** Nodes and their heartbeats. Records with `metadata.expires` carry the same backend TTL. */
export class NodesStore {
  constructor(private readonly backend: Backend) {}

  /** Straight from storage: for the rare calls that must not miss a write the watch has not brought yet. */
  async list(): Promise<NodeResource[]> {
    const { items } = await this.backend.list({ prefix: nodesPrefix });
    return items.map(nodeFromItem);
  }

  async get(id: string): Promise<StoredNode | null> {
    if (!isNodeId(id)) return null;
    const item = await this.backend.get(nodesPrefix + id);
    return item ? { node: nodeFromItem(item), revision: item.revision } : null;
  }

  async create(node: NodeResource): Promise<void> {
    try {
      await this.backend.create(toPut(node));
    } catch (error) {
      if (error instanceof AlreadyExistsError) throw changedMeanwhile(node.metadata.name);
      throw error;
    }
  }

  /** Writes over `revision`; a record that moved on or vanished meanwhile is a 409. */
  async update(node: NodeResource, revision: string): Promise<void> {
    try {
      await this.backend.update(toPut(node), revision);
    } catch (error) {
      if (error instanceof CompareFailedError || error instanceof NotFoundError) {
        throw changedMeanwhile(node.metadata.name);
      }
      throw error;
    }
  }

  /**
   * Read, change, write over the revision read; a racing writer makes it read again (twice at
   * most). `change` gets the live record or null, and returns null to leave it as it is.
   */
  async mutate(
    id: string,
    isLive: (node: NodeResource) => boolean,
    change: (current: NodeResource | null) => NodeResource | null,
  ): Promise<{ node: NodeResource | null; before: NodeResource | null }> {
    if (!isNodeId(id)) throw nodeNotFound(id);
    for (let attempt = 0; ; attempt++) {
      const stored = await this.get(id);
      const before = stored && isLive(stored.node) ? stored.node : null;
      const next = change(before);
      if (!next) return { node: before, before };
      try {
        if (stored) await this.update(next, stored.revision);
        else await this.create(next);
        return { node: next, before };
      } catch (error) {
        if (attempt >= 2 || !(error instanceof ApiError && error.code === 'compare_failed')) {
          throw error;
        }
      }
    }
  }

  async delete(id: string): Promise<void> {
    try {
      if (!isNodeId(id)) throw new NotFoundError(id);
      await this.backend.delete(nodesPrefix + id);
    } catch (error) {
      if (error instanceof NotFoundError) throw nodeNotFound(id);
      throw error;
    }
    // The marker would expire by itself; removing it says "gone" at once.
    await this.backend.delete(heartbeatsPrefix + id).catch(() => undefined);
  }

  async putHeartbeat(id: string, heartbeat: HeartbeatRecord): Promise<void> {
    await this.backend.upsert({
      key: heartbeatsPrefix + id,
      value: JSON.stringify(heartbeat),
      expires: new Date(heartbeat.expires),
    });
  }
}

/** Two writers raced on one node; the caller retries from a fresh read. */
export const changedMeanwhile = (id: string) =>
  new ApiError('compare_failed', `server ${id} changed meanwhile: try again`);

export const nodeFromItem = (item: Item) => JSON.parse(item.value) as NodeResource;
export const heartbeatFromItem = (item: Item) => JSON.parse(item.value) as HeartbeatRecord;

function toPut(node: NodeResource) {
  const { expires } = node.metadata;
  return {
    key: nodesPrefix + node.metadata.name,
    value: JSON.stringify(node),
    ...(expires ? { expires: new Date(expires) } : {}),
  };
}

/** Node names are UUIDs; anything else cannot name one (and never reaches the backend). */
export const isNodeId = (id: string) => isUuid(id);
