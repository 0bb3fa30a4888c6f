import { z } from 'zod';
import { appJsonSchema } from './apps.js';
import { databaseJsonSchema } from './databases.js';
import { desktopJsonSchema } from './desktops.js';
import { kubeClusterJsonSchema } from './kubernetes.js';
import { nodeJsonSchema } from './nodes.js';
import { resourceListMaxLimit, resourcePageSize, sortParamSchema } from './resource-list.js';

/**
 * Unified resources (reference §1.5 [now], `GET sites/{clusterId}/resources`): everything the
 * user may reach, of every kind, in one list, each item as its own kind's list shows it, with
 * `kind` saying which. The reference made it the console's default view.
 */
export const unifiedResourceKinds = [
  'node',
  'app',
  'db',
  'kube_cluster',
  'windows_desktop',
] as const;
export type UnifiedResourceKind = (typeof unifiedResourceKinds)[number];

/**
 * What the unified list includes (reference `includedResourceMode`): what the user may reach
 * (`accessible`), that and what their search-as roles could be granted (`all`), or only the
 * latter (`requestable`).
 */
export const includedResourceModes = ['accessible', 'all', 'requestable'] as const;
export type IncludedResourceMode = (typeof includedResourceModes)[number];

/** Set on an item the user reaches only once an access request for it is approved. */
const requestFields = { requiresRequest: z.boolean().optional() };

export const unifiedResourceSchema = z.discriminatedUnion('kind', [
  nodeJsonSchema.extend({ kind: z.literal('node'), ...requestFields }),
  appJsonSchema.extend(requestFields),
  databaseJsonSchema.extend(requestFields),
  kubeClusterJsonSchema.extend(requestFields),
  desktopJsonSchema.extend(requestFields),
]);
export type UnifiedResource = z.infer<typeof unifiedResourceSchema>;

/** What the list sorts by: the name (a server's hostname), or the kind and then the name. */
export const unifiedResourceSortFields = ['name', 'kind'] as const;

const kindList = z
  .string()
  .max(256)
  .transform((raw, ctx) => {
    const kinds = raw
      .split(',')
      .map((kind) => kind.trim())
      .filter(Boolean);
    const unknown = kinds.filter(
      (kind) => !(unifiedResourceKinds as readonly string[]).includes(kind),
    );
    if (unknown.length > 0) {
      ctx.addIssue({ code: 'custom', message: `kinds are: ${unifiedResourceKinds.join(', ')}` });
      return z.NEVER;
    }
    return kinds as UnifiedResourceKind[];
  });

/**
 * `GET sites/{clusterId}/resources`: the query of every resource list (search words, label
 * clauses, paging), over the kinds named in `kinds` (comma-separated; all when absent).
 */
export const unifiedResourcesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(resourceListMaxLimit).default(resourcePageSize),
  startKey: z.string().max(512).default(''),
  search: z.string().max(256).default(''),
  query: z.string().max(1024).default(''),
  sort: sortParamSchema(unifiedResourceSortFields).optional(),
  kinds: kindList.optional(),
  /** `true`: only what the caller pinned on this cluster (`/user/preferences/:clusterId`). */
  pinnedOnly: z.enum(['true', 'false']).default('false'),
  includedResourceMode: z.enum(includedResourceModes).default('accessible'),
});

export const unifiedResourcesResponseSchema = z.object({
  items: z.array(unifiedResourceSchema),
  /** The key of the next page; '' at the end. */
  startKey: z.string(),
  /** How many match, over all pages and kinds. */
  totalCount: z.number().int(),
});
export type UnifiedResourcesResponse = z.infer<typeof unifiedResourcesResponseSchema>;

/** The name a unified item sorts and shows by: a server's hostname, or the resource's name. */
export const unifiedResourceName = (item: UnifiedResource): string =>
  item.kind === 'node' ? item.hostname : item.name;

/**
 * An item's id in the unified list and in the pinned resources: its kind and its key in that
 * kind (a server's id, any other resource's name).
 */
export const unifiedResourceId = (item: UnifiedResource): string =>
  `${item.kind}/${item.kind === 'node' ? item.id : item.name}`;
