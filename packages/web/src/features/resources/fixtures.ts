import type { UnifiedResource, UnifiedResourcesResponse } from '@postern/contracts';
import { appFixtures } from '../apps/fixtures';
import { databaseFixtures } from '../databases/fixtures';
import { desktopFixtures } from '../desktops/fixtures';
import { kubeClusterFixtures } from '../kubernetes/fixtures';
import { manyNodes, nodeFixtures } from '../nodes/fixtures';

/**
 * `GET /v1/webapi/sites/{clusterId}/resources` items as the server sends them: one of each kind,
 * each its own list's item (a server's with `kind` added).
 */
export const resourceFixtures: UnifiedResource[] = [
  { ...nodeFixtures[0]!, kind: 'node' },
  appFixtures[0]!,
  databaseFixtures[0]!,
  kubeClusterFixtures[0]!,
  desktopFixtures[0]!,
];

export function resourcePage(
  items: UnifiedResource[] = resourceFixtures,
  startKey = '',
  totalCount = items.length,
): UnifiedResourcesResponse {
  return { items, startKey, totalCount };
}

/** `count` servers named host-01…, as unified items, for paging tests. */
export const manyServerResources = (count: number): UnifiedResource[] =>
  manyNodes(count).map((node) => ({ ...node, kind: 'node' }));
