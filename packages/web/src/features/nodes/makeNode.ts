import {
  nodeSortFields,
  type NodeJson,
  type NodeLabel,
  type NodeSortField,
  type NodeSubKind,
} from '@postern/contracts';
import {
  addLabel,
  listFiltersKey,
  listSortParam,
  parseListSort,
  queryLabels,
  removeLabel,
  type ListFilters,
  type ListSort,
} from '../../components/resourceList/listFilters';
import { parseTimestamp } from '../../lib/format';

/** The console's model of a server (spec §3 Node). */
export interface ServerNode {
  id: string;
  clusterId: string;
  hostname: string;
  addr: string;
  tunnel: boolean;
  subKind: NodeSubKind;
  labels: NodeLabel[];
  sshLogins: string[];
  status: 'online' | 'offline';
  lastHeartbeat: Date | undefined;
  os: string;
}

export function makeNode(json: NodeJson): ServerNode {
  return {
    id: json.id,
    clusterId: json.siteId,
    hostname: json.hostname,
    addr: json.addr,
    tunnel: json.tunnel,
    subKind: json.subKind,
    labels: json.tags,
    sshLogins: json.sshLogins,
    status: json.status,
    lastHeartbeat: parseTimestamp(json.lastHeartbeat),
    os: json.os,
  };
}

/** One page of a server-side listing. */
export interface NodePage {
  nodes: ServerNode[];
  /** The next page's key; '' on the last page. */
  startKey: string;
  totalCount: number;
}

export type NodeSort = ListSort<NodeSortField>;

/** What the list is narrowed and ordered by; all of it goes to the server. */
export type NodeFilters = ListFilters<NodeSortField>;

export const noFilters: NodeFilters = { search: '', query: '' };

/** `hostname:asc` ↔ {field, dir}; anything else means the server's default order. */
export const parseSort = (value: string | null | undefined): NodeSort | undefined =>
  parseListSort(value, nodeSortFields);

export const sortParam = (sort: NodeSort | undefined) => listSortParam(sort);

// The label query rules are every list's; servers keep their names for them.
export { addLabel, queryLabels, removeLabel };

/** Filters as one string: a change of it sends the list back to page 1. */
export const filtersKey = (f: NodeFilters) => listFiltersKey(f);
