import {
  unifiedResourceId,
  unifiedResourceKinds,
  unifiedResourceName,
  type IncludedResourceMode,
  type NodeLabel,
  type UnifiedResource,
  type UnifiedResourceKind,
  type unifiedResourceSortFields,
} from '@postern/contracts';
import type { ListFilters } from '../../components/resourceList/listFilters';
import { makeApp, type App } from '../apps/makeApp';
import { makeDatabase, type Database } from '../databases/makeDatabase';
import { makeDesktop, type Desktop } from '../desktops/makeDesktop';
import { makeKubeCluster, type KubeCluster } from '../kubernetes/makeKubeCluster';
import { makeNode, type ServerNode } from '../nodes/makeNode';

/** What every row of the unified list has, whatever its kind. */
interface ResourceCommon {
  /** Unique in a listing, and what a pin names: the kind and the kind's own key (`node/<id>`). */
  id: string;
  /** The kind's own key: a server's id, any other resource's name (what a request names). */
  key: string;
  /** Reached only once an access request for it is approved (listed by the search-as roles). */
  requiresRequest: boolean;
  /** What the list shows and sorts by: a server's hostname, any other resource's name. */
  name: string;
  labels: NodeLabel[];
  status: 'online' | 'offline';
}

/**
 * One row of the unified Resources list: the kind, and the resource as its own kind's page
 * models it (the same `makeNode`, `makeApp`… mapping), so each row's Connect is its kind's own.
 */
export type Resource = ResourceCommon &
  (
    | { kind: 'node'; node: ServerNode }
    | { kind: 'app'; app: App }
    | { kind: 'db'; db: Database }
    | { kind: 'kube_cluster'; cluster: KubeCluster }
    | { kind: 'windows_desktop'; desktop: Desktop }
  );

export function makeResource(item: UnifiedResource): Resource {
  const id = unifiedResourceId(item);
  const common = {
    id,
    key: id.slice(item.kind.length + 1),
    name: unifiedResourceName(item),
    requiresRequest: item.requiresRequest === true,
  };
  switch (item.kind) {
    case 'node': {
      const node = makeNode(item);
      const { labels, status } = node;
      return { kind: 'node', node, ...common, labels, status };
    }
    case 'app': {
      const app = makeApp(item);
      const { labels, status } = app;
      return { kind: 'app', app, ...common, labels, status };
    }
    case 'db': {
      const db = makeDatabase(item);
      const { labels, status } = db;
      return { kind: 'db', db, ...common, labels, status };
    }
    case 'kube_cluster': {
      const cluster = makeKubeCluster(item);
      const { labels, status } = cluster;
      return { kind: 'kube_cluster', cluster, ...common, labels, status };
    }
    case 'windows_desktop': {
      const desktop = makeDesktop(item);
      const { labels, status } = desktop;
      return { kind: 'windows_desktop', desktop, ...common, labels, status };
    }
  }
}

/** A row's short detail: reached through a tunnel, an address, or a line of text. */
export type ResourceDetail =
  { type: 'tunnel' } | { type: 'address'; text: string } | { type: 'text'; text: string };

const addressOrTunnel = (tunnel: boolean, addr: string): ResourceDetail =>
  tunnel ? { type: 'tunnel' } : { type: 'address', text: addr };

/**
 * The detail of the row by kind: where a server or desktop is (or that a tunnel reaches it), an
 * app's address, a database's type, a Kubernetes cluster's description.
 */
export function resourceDetail(resource: Resource): ResourceDetail {
  switch (resource.kind) {
    case 'node':
      return addressOrTunnel(resource.node.tunnel, resource.node.addr);
    case 'app':
      return { type: 'address', text: resource.app.addrWithProtocol };
    case 'db':
      return { type: 'text', text: resource.db.type };
    case 'kube_cluster':
      return { type: 'text', text: resource.cluster.description };
    case 'windows_desktop':
      return addressOrTunnel(resource.desktop.tunnel, resource.desktop.addr);
  }
}

export type ResourceSortField = (typeof unifiedResourceSortFields)[number];

/** The list's filters: search, labels and sort as every list, and the kinds in `extra.kinds`. */
export type ResourceFilters = ListFilters<ResourceSortField>;

/** The URL parameter (and the API's) holding the kinds asked for, comma-separated. */
export const kindsParam = 'kinds';

/** The kinds the filters ask for, known ones only, in the contract's order; none means all. */
export function kindsOf(filters: ResourceFilters): UnifiedResourceKind[] {
  const asked = new Set((filters.extra?.[kindsParam] ?? '').split(',').map((kind) => kind.trim()));
  return unifiedResourceKinds.filter((kind) => asked.has(kind));
}

/** The filters asking for these kinds (none: every kind). */
export const withKinds = (
  filters: ResourceFilters,
  kinds: readonly UnifiedResourceKind[],
): ResourceFilters => ({
  ...filters,
  extra: {
    ...filters.extra,
    [kindsParam]: unifiedResourceKinds.filter((kind) => kinds.includes(kind)).join(','),
  },
});

export const noFilters: ResourceFilters = { search: '', query: '' };

/** How the list is viewed: only the pinned resources, and which resources are included. */
export interface ResourceView {
  pinnedOnly: boolean;
  mode: IncludedResourceMode;
}

/**
 * The filters with the view's parameters (`pinnedOnly`, `includedResourceMode`), each left out
 * at its default, so a default view asks exactly what it did before there were views.
 */
export const withView = (filters: ResourceFilters, view: ResourceView): ResourceFilters => ({
  ...filters,
  extra: {
    ...filters.extra,
    pinnedOnly: view.pinnedOnly ? 'true' : '',
    includedResourceMode: view.mode === 'accessible' ? '' : view.mode,
  },
});
