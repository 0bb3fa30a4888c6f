import {
  secretPlaceholder,
  trustedClusterItemId,
  type TrustedCluster,
  type TrustedClusterItem,
} from '@postern/contracts';
import { assertMay, visible, type Actor } from '../../access-control/access/actor.js';
import { issueAt } from '../../access-control/roles/roles.service.js';
import { ApiError } from '../../errors.js';
import type { AuditStore } from '../audit/index.js';
import { emitAudit } from '../audit/emit.js';
import { trustedClusterToYaml, parseTrustedClusterYaml } from './trusted-cluster.yaml.js';
import {
  trustedClusterNotFound,
  type RootTrust,
  type StoredTrustedCluster,
  type TrustedClustersStore,
} from './trusted-clusters.store.js';

export interface TrustedClustersDeps {
  store: TrustedClustersStore;
  audit: AuditStore;
  /** This cluster's own name: it cannot trust itself. */
  clusterName: string;
  /** Asks the root to trust this cluster (root-client.ts); throws a 400 saying why not. */
  askRoot: (resource: TrustedCluster) => Promise<RootTrust>;
  /** Where the link to that root stands on this proxy (leaf-links.ts). */
  status: (name: string) => TrustedClusterItem['status'];
}

/**
 * A leaf's trusted clusters, as YAML resources (spec §7 `trustedcluster/{name?}`). Saving an
 * enabled one asks its root first, so what is stored is always a relationship the root accepted
 * (nothing is half-written when it refuses); the token stays in storage and is shown as the
 * placeholder, which a save may keep.
 */
export class TrustedClustersService {
  constructor(private readonly deps: TrustedClustersDeps) {}

  async list(actor: Actor): Promise<StoredTrustedCluster[]> {
    return visible(actor, 'trusted_cluster', await this.deps.store.list());
  }

  async create(content: string, actor: Actor): Promise<StoredTrustedCluster> {
    const resource = withoutRevision(parseTrustedClusterYaml(content));
    const name = resource.metadata.name;
    assertMay(actor, 'trusted_cluster', 'create', resource, name);
    this.checkName(content, name);
    if (resource.spec.token === secretPlaceholder) {
      throw issueAt(
        content,
        'spec.token',
        'is the placeholder: paste the token the root cluster made',
      );
    }
    // Checked before the root is asked, so a duplicate never spends a token.
    if (await this.deps.store.get(name)) throw alreadyTrusted(name);
    const trust = resource.spec.enabled ? await this.deps.askRoot(resource) : undefined;
    const saved = await this.deps.store.create({ ...resource, ...(trust ? { trust } : {}) });
    await emitAudit(this.deps.audit, 'T7000I', { user: actor.name, name });
    return saved;
  }

  /**
   * `PUT /trustedcluster/{name}` over the revision the YAML carries. The placeholder keeps the
   * stored token. Enabling one, or changing its token or address, asks the root again.
   */
  async update(name: string, content: string, actor: Actor): Promise<StoredTrustedCluster> {
    const parsed = parseTrustedClusterYaml(content);
    if (parsed.metadata.name !== name) {
      throw issueAt(
        content,
        'metadata.name',
        `is '${parsed.metadata.name}' but the trusted cluster being saved is '${name}': it cannot be renamed`,
      );
    }
    const revision = parsed.metadata.revision;
    if (!revision) {
      throw issueAt(
        content,
        'metadata.revision',
        'is missing: save the trusted cluster as it was loaded (its YAML carries the revision), or reload it',
      );
    }
    const current = await this.deps.store.get(name);
    if (!current) throw trustedClusterNotFound(name);
    assertMay(actor, 'trusted_cluster', 'update', current, name);
    const token = parsed.spec.token === secretPlaceholder ? current.spec.token : parsed.spec.token;
    const resource = withoutRevision({ ...parsed, spec: { ...parsed.spec, token } });
    const sameRoot =
      token === current.spec.token && resource.spec.web_proxy_addr === current.spec.web_proxy_addr;
    let trust = current.trust;
    if (resource.spec.enabled && !(sameRoot && trust)) trust = await this.deps.askRoot(resource);
    const saved = await this.deps.store.update(
      { ...resource, ...(trust ? { trust } : {}) },
      revision,
    );
    await emitAudit(this.deps.audit, 'T7000I', { user: actor.name, name });
    return saved;
  }

  async remove(name: string, actor: Actor): Promise<void> {
    const current = await this.deps.store.get(name);
    if (!current) throw trustedClusterNotFound(name);
    assertMay(actor, 'trusted_cluster', 'delete', current, name);
    await this.deps.store.delete(name);
    await emitAudit(this.deps.audit, 'T7001I', { user: actor.name, name });
  }

  /** The Trusted Clusters screen's item: YAML with the token as the placeholder, and the link. */
  item(resource: StoredTrustedCluster): TrustedClusterItem {
    const name = resource.metadata.name;
    const status = this.deps.status(name);
    return {
      id: trustedClusterItemId(name),
      kind: 'trusted_cluster',
      name,
      content: trustedClusterToYaml(resource),
      ...(status ? { status } : {}),
    };
  }

  private checkName(content: string, name: string): void {
    if (name === this.deps.clusterName) {
      throw issueAt(content, 'metadata.name', `is this cluster's own name: name the root cluster`);
    }
  }
}

const alreadyTrusted = (name: string) =>
  new ApiError('already_exists', `trusted cluster ${name} already exists`);

function withoutRevision<T extends TrustedCluster>(resource: T): T {
  const { revision: _revision, ...metadata } = resource.metadata;
  return { ...resource, metadata };
}
