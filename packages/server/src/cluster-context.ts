import { currentClusterAlias } from '@postern/contracts';
import { notFound } from './errors.js';

/** Resolves a `:clusterId` path parameter; only the local cluster exists until trusted clusters. */
export function resolveClusterId(clusterId: string, localCluster: string): string {
  if (clusterId === currentClusterAlias || clusterId === localCluster) return localCluster;
  throw notFound(`cluster '${clusterId}' is not found`);
}
