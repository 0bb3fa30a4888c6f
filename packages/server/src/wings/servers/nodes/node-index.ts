import type { NodeSortField } from '@postern/contracts';
import type { ResourceIndex } from '../../../modules/inventory/resource-index.js';
import type { IndexedResource, ResourceKind } from '../../../modules/inventory/resource-kind.js';
import { allLabels } from './node-list.js';
import { heartbeatsPrefix, isNodeId, nodeFromItem, nodesPrefix } from './nodes.store.js';
import type { NodeResource } from './nodes.store.js';

/** A node record as the generic inventory indexes it. */
export type IndexedNode = IndexedResource<NodeResource>;

/** The node list's sort fields that have an order of their own (status has none). */
export type NodeOrderField = Exclude<NodeSortField, 'status'>;

/** Servers as a kind of the generic inventory: where they live and how they are read. */
export function nodeKind(heartbeatTtlMs: number): ResourceKind<NodeResource, NodeOrderField> {
  return {
    accessKind: 'node',
    recordsPrefix: nodesPrefix,
    heartbeatsPrefix,
    parse: nodeFromItem,
    idOf: (node) => node.metadata.name,
    isId: isNodeId,
    labelsOf: allLabels,
    searchTextsOf: (node) => [node.spec.hostname, node.spec.addr],
    sortValues: { hostname: (node) => node.spec.hostname, addr: (node) => node.spec.addr },
    expiresOf: (node) => node.metadata.expires,
    lastSeenOf: (node) => node.spec.lastHeartbeat,
    heartbeatTtlMs,
  };
}

/**
 * What only nodes are looked up by: their address (`nodes add` refuses a second server at one)
 * and the agentless hosts the reachability check visits. Kept from the index's changes, so
 * neither touches every record.
 */
export class NodeAddresses {
  private readonly byAddr = new Map<string, Set<IndexedNode>>();
  private readonly agentless = new Map<string, IndexedNode>();

  constructor(private readonly index: ResourceIndex<NodeResource>) {
    index.onChange((removed, added) => {
      if (removed) this.detach(removed);
      if (added) this.attach(added);
    });
  }

  /** Whether a live record has this address. */
  hasAddr(addr: string): boolean {
    return [...(this.byAddr.get(addr) ?? [])].some(this.index.live);
  }

  /** The live agentless OpenSSH hosts that have an address to check. */
  agentlessHosts(): IndexedNode[] {
    return [...this.agentless.values()].filter(this.index.live);
  }

  private attach(entry: IndexedNode): void {
    const { addr, subKind } = entry.resource.spec;
    const sameAddr = this.byAddr.get(addr) ?? new Set();
    this.byAddr.set(addr, sameAddr.add(entry));
    if (subKind === 'openssh' && addr !== '') this.agentless.set(entry.id, entry);
  }

  private detach(entry: IndexedNode): void {
    if (this.agentless.get(entry.id) === entry) this.agentless.delete(entry.id);
    const sameAddr = this.byAddr.get(entry.resource.spec.addr);
    sameAddr?.delete(entry);
    if (sameAddr?.size === 0) this.byAddr.delete(entry.resource.spec.addr);
  }
}
