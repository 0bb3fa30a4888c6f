import { randomUUID } from 'node:crypto';
import { defaultNodeSort } from '@postern/contracts';
import type { Backend } from '../../../backend/index.js';
import { systemClock, type Clock } from '../../../clock.js';
import { ApiError, accessDenied, badParameter } from '../../../errors.js';
import { parseInput } from '../../../http/parse-input.js';
import { assertMay, type Actor } from '../../../access-control/access/actor.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import { emitAudit } from '../../../modules/audit/emit.js';
import { ResourceInventory } from '../../../modules/inventory/resource-inventory.js';
import { normalizeHostKey, safeFingerprint } from './host-key.js';
import { NodeAddresses, nodeKind, type IndexedNode, type NodeOrderField } from './node-index.js';
import {
  toNodeRow,
  type ListCriteria,
  type NodeAccess,
  type NodePage,
  type NodeRow,
} from './node-list.js';
import {
  needsRewrite,
  newOpenSshNodeSchema,
  nodeHeartbeatSchema,
  recordFromHeartbeat,
  type Enrollment,
  type NewOpenSshNode,
  type NodeHeartbeat,
} from './node-records.js';
import { nodeNotFound, NodesStore, type NodeResource } from './nodes.store.js';

export interface InventoryOptions {
  now?: Clock;
  /** How often node services send a heartbeat (they read it here). Default one minute. */
  heartbeatIntervalMs?: number;
  /** How long one heartbeat keeps a node online: default 3 intervals, so one lost beat is no outage. */
  heartbeatTtlMs?: number;
  /** How long a heartbeat-driven record outlives its last heartbeat: a day, then dead agents go. */
  recordTtlMs?: number;
  /** How often a heartbeat rewrites an unchanged record (to push its expiry on). */
  recordRefreshMs?: number;
  /** Told about watch failures (before the caches list again). */
  onError?: (error: unknown) => void;
}

/** The host key a node presented is not the one on record: the proxy refuses to connect. */
export const hostKeyMismatch = (node: NodeResource) =>
  accessDenied(
    `the host key of server ${node.spec.hostname} does not match the one on record; ` +
      `if the host was rebuilt, remove it ('postern nodes rm') and add it again`,
  );

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The servers of the cluster, on the generic inventory (modules/inventory): records and heartbeat
 * markers are held in memory, fed by watches on `/nodes/` and `/node_heartbeats/`, so listing and
 * resolving never read storage per request and every proxy on the same storage agrees within the
 * watch's latency. A node is online while its short-lived marker lives; its record outlives it by
 * a day, so a dead agent shows offline before it is collected. Agentless OpenSSH hosts have nothing on them to send heartbeats: the
 * proxy checks them itself (reachability.ts) and writes the same marker when one answers; their
 * records never expire.
 */
export class InventoryService {
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTtlMs: number;
  private readonly recordTtlMs: number;
  private readonly recordRefreshMs: number;
  private readonly now: Clock;
  private readonly store: NodesStore;
  private readonly inventory: ResourceInventory<NodeResource, NodeOrderField>;
  private readonly addresses: NodeAddresses;

  constructor(
    backend: Backend,
    private readonly audit: AuditStore,
    options: InventoryOptions = {},
  ) {
    this.now = options.now ?? systemClock;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 60_000;
    this.heartbeatTtlMs = options.heartbeatTtlMs ?? 3 * this.heartbeatIntervalMs;
    this.recordTtlMs = options.recordTtlMs ?? 24 * 3600_000;
    this.recordRefreshMs = options.recordRefreshMs ?? 10 * 60_000;
    this.store = new NodesStore(backend);
    this.inventory = new ResourceInventory(backend, nodeKind(this.heartbeatTtlMs), {
      now: this.now,
      onError: options.onError,
    });
    this.addresses = new NodeAddresses(this.inventory.index);
  }

  start(): Promise<void> {
    return this.inventory.start();
  }

  close(): Promise<void> {
    return this.inventory.close();
  }

  /** The live node with this id, from memory. */
  get(id: string): NodeResource | undefined {
    return this.inventory.get(id);
  }

  /** Every live node with its status and labels, in no particular order. */
  rows(): NodeRow[] {
    return this.inventory.rows().map(toNodeRow);
  }

  row(node: NodeResource): NodeRow {
    return toNodeRow(this.inventory.row(node));
  }

  /** How many live nodes there are (all of them, whoever asks: the cluster's node count). */
  nodeCount(): number {
    return this.inventory.count();
  }

  /** The live agentless OpenSSH hosts with an address, which the proxy checks itself. */
  agentlessHosts(): NodeResource[] {
    this.inventory.assertStarted();
    return this.addresses.agentlessHosts().map((entry) => entry.resource);
  }

  /**
   * The node a terminal's `server_id` names: its UUID, its hostname (any case) or its host:port.
   * With `access`, only nodes it may see count, so a name never resolves to a hidden node.
   */
  resolve(serverId: string, access?: NodeAccess | null): NodeResource {
    this.inventory.assertStarted();
    const { index } = this.inventory;
    const usable = (entry: IndexedNode) =>
      index.live(entry) && (!access || access.canAccess('node', entry));
    const byId = index.get(serverId);
    if (byId && usable(byId)) return byId.resource;
    const wanted = serverId.toLowerCase();
    const matches = [...index.all()]
      .filter(
        (entry) => entry.sortValues.hostname === wanted || entry.resource.spec.addr === serverId,
      )
      .filter(usable)
      .map((entry) => entry.resource);
    if (matches.length > 1) {
      throw badParameter(
        `${matches.length} servers are called '${serverId}': name one by its id instead`,
      );
    }
    if (!matches[0]) throw nodeNotFound(serverId);
    return matches[0];
  }

  /** One page of the nodes `access` may see that match the criteria (see node-list.ts). */
  list(criteria: ListCriteria, access: NodeAccess | null): NodePage {
    // Only what this viewer may see and the filter admits is counted: no hidden servers.
    const page = this.inventory.list(criteria, access, defaultNodeSort);
    return {
      startKey: page.startKey,
      totalCount: page.totalCount,
      items: page.rows.map(toNodeRow).map((row) => ({
        ...row,
        // The id lets a role that a request for this very node added count here.
        logins: access ? access.loginsFor({ ...row, id: row.node.metadata.name }) : [],
      })),
    };
  }

  /**
   * A node service reports in. Writes the online marker, and the record when it is new, when
   * something in it changed, or when its expiry is due to be pushed on.
   */
  async heartbeat(input: NodeHeartbeat): Promise<NodeResource> {
    const h = parseInput(nodeHeartbeatSchema, input);
    const now = this.now();
    const cached = this.get(h.id);
    let node = cached && recordFromHeartbeat(h, cached, now, this.recordTtlMs);
    if (!cached || !node || needsRewrite(cached, node, now, this.recordRefreshMs)) {
      const { node: written, before } = await this.store.mutate(h.id, this.live, (current) => {
        const next = recordFromHeartbeat(h, current, now, this.recordTtlMs);
        return current && !needsRewrite(current, next, now, this.recordRefreshMs) ? null : next;
      });
      if (!before) await this.auditCreated(written!, undefined);
      node = written!;
    }
    await this.store.putHeartbeat(h.id, {
      time: iso(now),
      expires: iso(now + this.heartbeatTtlMs),
    });
    return node;
  }

  /**
   * The proxy reached an agentless host (its SSH banner answered): online for `ttlMs`, like a
   * heartbeat. The record's last-seen time is rewritten only every few minutes, so a host that
   * stopped answering long ago still says when it was last seen once its marker is gone.
   */
  async markReachable(id: string, ttlMs: number): Promise<void> {
    const now = this.now();
    await this.store.putHeartbeat(id, { time: iso(now), expires: iso(now + ttlMs) });
    const due = (node: NodeResource | null | undefined) => {
      const written = Date.parse(node?.spec.lastHeartbeat ?? '');
      return !Number.isFinite(written) || written + this.recordRefreshMs <= now;
    };
    if (!due(this.get(id))) return;
    await this.store.mutate(id, this.live, (current) =>
      current && due(current)
        ? { ...current, spec: { ...current.spec, lastHeartbeat: iso(now) } }
        : null,
    );
  }

  /** `postern nodes add`: an agentless OpenSSH host; its host key is pinned on first use. */
  async addOpenSsh(input: NewOpenSshNode, actor: Actor): Promise<NodeResource> {
    const { name, addr, labels } = parseInput(newOpenSshNodeSchema, input);
    this.inventory.assertStarted();
    if (this.addresses.hasAddr(addr)) {
      throw new ApiError('already_exists', `a server at ${addr} is registered already`);
    }
    const node: NodeResource = {
      kind: 'node',
      version: 'v2',
      metadata: { name: randomUUID(), labels },
      spec: {
        hostname: name,
        addr,
        subKind: 'openssh',
        tunnel: false,
        os: '',
        cmdLabels: {},
        hostPublicKey: '',
        hostKeySource: '',
      },
    };
    assertMay(actor, 'node', 'create', node, name);
    await this.store.create(node);
    await this.auditCreated(node, actor.name);
    return node;
  }

  /**
   * Records a node that joined with a token. The same host joining again (same kind, same host
   * key) keeps its id, so running the install script twice leaves one server. Joins are rare, so
   * this reads storage rather than the cache, which may not have seen a join a moment ago.
   */
  async enroll(e: Enrollment): Promise<{ node: NodeResource; created: boolean }> {
    const same = (await this.store.list()).find(
      (node) =>
        node.spec.subKind === e.subKind &&
        node.spec.hostPublicKey === e.hostPublicKey &&
        this.live(node),
    );
    const id = same?.metadata.name ?? randomUUID();
    const tunnel = e.subKind === 'postern';
    const now = this.now();
    const { node, before } = await this.store.mutate(id, this.live, (current) => ({
      kind: 'node',
      version: 'v2',
      metadata: {
        name: id,
        labels: e.labels,
        // An agent keeps its record alive with heartbeats; an agentless host has none to send.
        ...(tunnel ? { expires: iso(now + this.recordTtlMs) } : {}),
      },
      spec: {
        hostname: e.hostname,
        addr: tunnel ? '' : e.addr,
        subKind: e.subKind,
        tunnel,
        os: e.os,
        cmdLabels: current?.spec.cmdLabels ?? {},
        hostPublicKey: e.hostPublicKey,
        hostKeySource: 'certificate',
        joinLabels: e.joinLabels,
        lastHeartbeat: current?.spec.lastHeartbeat ?? '',
      },
    }));
    return { node: node!, created: !before };
  }

  /** `postern nodes rm`: by id or by hostname. */
  async remove(idOrName: string, actor: Actor): Promise<NodeResource> {
    const node = this.resolve(idOrName);
    assertMay(actor, 'node', 'delete', node, node.spec.hostname);
    await this.store.delete(node.metadata.name);
    await emitAudit(this.audit, 'TPOS021I', {
      user: actor.name,
      name: node.metadata.name,
      hostname: node.spec.hostname,
      addr: node.spec.addr,
    });
    return node;
  }

  /**
   * The proxy met an agentless host whose key was unknown and trusts it from now on. A different
   * key pinned meanwhile (another proxy, racing) is a mismatch, never an overwrite.
   */
  async pinHostKey(id: string, publicKeyLine: string): Promise<NodeResource> {
    const key = normalizeHostKey(publicKeyLine);
    const { node, before } = await this.store.mutate(id, this.live, (current) => {
      if (!current) throw nodeNotFound(id);
      if (current.spec.hostPublicKey === key) return null;
      if (current.spec.hostPublicKey) throw hostKeyMismatch(current);
      return { ...current, spec: { ...current.spec, hostPublicKey: key, hostKeySource: 'pinned' } };
    });
    if (before?.spec.hostPublicKey !== key) {
      await emitAudit(this.audit, 'TPOS022I', {
        name: id,
        hostname: node!.spec.hostname,
        addr: node!.spec.addr,
        fingerprint: safeFingerprint(key),
      });
    }
    return node!;
  }

  /** The proxy refused a host whose key differs from the record; the record stays as it is. */
  async reportHostKeyMismatch(id: string, presentedKey: string): Promise<void> {
    const node = this.get(id) ?? (await this.store.get(id))?.node;
    if (!node) throw nodeNotFound(id);
    await emitAudit(this.audit, 'TPOS023E', {
      name: id,
      hostname: node.spec.hostname,
      addr: node.spec.addr,
      expected_fingerprint: safeFingerprint(node.spec.hostPublicKey),
      presented_fingerprint: safeFingerprint(presentedKey),
    });
  }

  private auditCreated(node: NodeResource, user: string | undefined) {
    return emitAudit(this.audit, 'TPOS020I', {
      ...(user ? { user } : {}),
      name: node.metadata.name,
      hostname: node.spec.hostname,
      addr: node.spec.addr,
      sub_kind: node.spec.subKind,
    });
  }

  // The backend drops expired records by itself, a little later; the clock decides meanwhile.
  private readonly live = (node: NodeResource): boolean => this.inventory.isLive(node);
}
