import type { WatchedCache } from '../../../backend/watched-cache.js';
import type { Clock } from '../../../clock.js';
import { allLabels } from './node-list.js';
import type { NodeResource } from './nodes.store.js';
import { SortedEntries } from './sorted-entries.js';

/** A node record with what listing it needs worked out once, when the record arrives. */
export interface IndexedNode {
  readonly id: string;
  readonly node: NodeResource;
  /** Static and command labels together (see allLabels). */
  readonly labels: Record<string, string>;
  /**
   * Lower-cased hostname, address, label names and values, one a line: what search words match.
   * Words never hold a line break (search splits on white space), so none matches across two.
   */
  readonly haystack: string;
  readonly hostname: string;
  readonly addr: string;
  /** When the record stops being live (Infinity for records that never expire). */
  readonly expiresMs: number;
}

/** The orders a listing may walk; 'id' serves the status sort, which changes with the clock. */
export type IndexOrder = 'hostname' | 'addr' | 'id';

type ChangeListener = (removed: IndexedNode | undefined, added: IndexedNode | undefined) => void;

/**
 * The watch-fed node records, kept in every order the node list offers and indexed by address and
 * kind, so that a page walks from its start key instead of sorting all records, and the
 * reachability check and `nodes add` touch only what they need. Fed by the cache's put and
 * delete events, so it is as current as the cache.
 */
export class NodeIndex {
  private readonly byId = new Map<string, IndexedNode>();
  private readonly byAddr = new Map<string, Set<IndexedNode>>();
  private readonly agentless = new Map<string, IndexedNode>();
  private readonly orders: Record<IndexOrder, SortedEntries<IndexedNode>>;
  private readonly listeners: ChangeListener[] = [];

  constructor(
    cache: WatchedCache<NodeResource>,
    private readonly now: Clock,
  ) {
    const all = () => this.byId.values();
    this.orders = {
      hostname: new SortedEntries((entry) => entry.hostname, all),
      addr: new SortedEntries((entry) => entry.addr, all),
      id: new SortedEntries(() => '', all),
    };
    cache.on('put', (_name: string, node: NodeResource) => this.put(node));
    cache.on('delete', (name: string) => this.remove(name));
  }

  /** Called with the entry a change replaced and the one it added (either may be missing). */
  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  get(id: string): IndexedNode | undefined {
    return this.byId.get(id);
  }

  /** Every entry, live or not, in no particular order. */
  all(): IterableIterator<IndexedNode> {
    return this.byId.values();
  }

  /** Applies pending changes to every order now (after a bulk load). */
  warm(): void {
    for (const order of Object.values(this.orders)) order.entries();
  }

  order(name: IndexOrder): SortedEntries<IndexedNode> {
    return this.orders[name];
  }

  // The backend drops expired records by itself, a little later; the clock decides meanwhile.
  readonly live = (entry: IndexedNode): boolean => entry.expiresMs > this.now();

  /** Whether a live record has this address. */
  hasAddr(addr: string): boolean {
    return [...(this.byAddr.get(addr) ?? [])].some(this.live);
  }

  /** The live agentless OpenSSH hosts that have an address to check. */
  agentlessHosts(): IndexedNode[] {
    return [...this.agentless.values()].filter(this.live);
  }

  private put(node: NodeResource): void {
    const removed = this.detach(node.metadata.name);
    const added = indexed(node);
    this.byId.set(added.id, added);
    const sameAddr = this.byAddr.get(node.spec.addr) ?? new Set();
    this.byAddr.set(node.spec.addr, sameAddr.add(added));
    if (node.spec.subKind === 'openssh' && node.spec.addr !== '') {
      this.agentless.set(added.id, added);
    }
    this.changed(removed, added);
  }

  private remove(id: string): void {
    const removed = this.detach(id);
    if (removed) this.changed(removed, undefined);
  }

  private detach(id: string): IndexedNode | undefined {
    const entry = this.byId.get(id);
    if (!entry) return undefined;
    this.byId.delete(id);
    this.agentless.delete(id);
    const sameAddr = this.byAddr.get(entry.node.spec.addr);
    sameAddr?.delete(entry);
    if (sameAddr?.size === 0) this.byAddr.delete(entry.node.spec.addr);
    return entry;
  }

  private changed(removed: IndexedNode | undefined, added: IndexedNode | undefined): void {
    for (const order of Object.values(this.orders)) order.changed(removed, added);
    for (const listener of this.listeners) listener(removed, added);
  }
}

function indexed(node: NodeResource): IndexedNode {
  const labels = allLabels(node);
  const texts = [node.spec.hostname, node.spec.addr];
  for (const [name, value] of Object.entries(labels)) texts.push(name, value);
  const expires = node.metadata.expires ? Date.parse(node.metadata.expires) : Infinity;
  return {
    id: node.metadata.name,
    node,
    labels,
    haystack: texts.join('\n').toLowerCase(),
    hostname: node.spec.hostname.toLowerCase(),
    addr: node.spec.addr.toLowerCase(),
    // An unreadable expiry is treated as passed, as `Date.parse(...) > now` was before.
    expiresMs: Number.isNaN(expires) ? -Infinity : expires,
  };
}
