import { z } from 'zod';

/** One element of `GET /v1/webapi/sites` (a bare JSON array, root cluster first). */
export const clusterJsonSchema = z.object({
  name: z.string(),
  lastConnected: z.string(),
  status: z.enum(['online', 'offline']),
  nodeCount: z.number().int().nonnegative(),
  publicURL: z.string(),
  authVersion: z.string(),
  proxyVersion: z.string(),
});
export type ClusterJson = z.infer<typeof clusterJsonSchema>;
export const clusterListSchema = z.array(clusterJsonSchema);
