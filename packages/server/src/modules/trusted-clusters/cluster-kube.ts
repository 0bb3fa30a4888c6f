import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { LeafReach } from './leaf-reach.js';

export type { LeafPassage } from './leaf-reach.js';

/**
 * kubectl through a root to a leaf's Kubernetes clusters (docs/trusted-clusters.md). Both halves
 * meet the Kubernetes wing here, since the platform never imports a wing: the trusted-clusters
 * part fills in the root's half (which names lead to a leaf, and the leaf session to reach it
 * with) and hands the leaf's half what a root's tunnel brings; the wing relays kubectl's requests
 * on the root and serves them on the leaf.
 *
 * A leaf's cluster is named `<cluster>.<leaf>` on the root (`prod.lab`): a Kubernetes cluster's
 * name is a DNS label, so the dot can only be the leaf's.
 */
export const leafKubeName = (cluster: string, leaf: string) => `${cluster}.${leaf}`;

/** The root's half: how to reach a leaf (leaf-reach.ts), and which names lead to one. */
export interface KubeRootSide extends LeafReach {
  /** `prod.lab` → `{ leaf: 'lab', cluster: 'prod' }` when lab is a leaf this cluster trusts. */
  split(name: string): { leaf: string; cluster: string } | undefined;
}

/** The leaf's half: kubectl's requests from a root's users, as the root relays them. */
export interface KubeLeafSide {
  request(req: IncomingMessage, res: ServerResponse, root: string): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, root: string): void;
}

export class ClusterKube {
  private root: KubeRootSide | undefined;
  private leaf: KubeLeafSide | undefined;

  /** The trusted-clusters part, once built. */
  attachRoot(side: KubeRootSide): void {
    this.root = side;
  }

  /** The Kubernetes wing, once built. */
  attachLeaf(side: KubeLeafSide): void {
    this.leaf = side;
  }

  /** Undefined when this cluster is no root, or `name` is not under a leaf it trusts. */
  split(name: string): { leaf: string; cluster: string } | undefined {
    return this.root?.split(name);
  }

  /** The root's half: present once the trusted-clusters part is built. */
  get rootSide(): KubeRootSide | undefined {
    return this.root;
  }

  /** The leaf's half, for a request a root's tunnel brought; undefined without the wing. */
  get leafSide(): KubeLeafSide | undefined {
    return this.leaf;
  }
}
