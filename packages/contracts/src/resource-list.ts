import { z } from 'zod';

/**
 * What every resource list of the API shares (servers, apps, and the databases, Kubernetes
 * clusters and desktops to come): the query of reference §1.5, its sort parameter and the page
 * it answers with. Each kind names its sortable fields and its item schema.
 */

/** Resource list limits (spec §7): the console asks for 15 a page; no caller gets more than 1000. */
export const resourceListMaxLimit = 1000;

/**
 * A page's size in the console, and the API's when a client names no limit: a request that asks
 * for nothing in particular costs what one screen shows, not a thousand rows.
 */
export const resourcePageSize = 15;

/** `sort=field:dir`; an unknown direction means ascending (reference §1.5). */
export const sortParamSchema = <F extends readonly [string, ...string[]]>(fields: F) =>
  z
    .string()
    .max(64)
    .transform((raw, ctx) => {
      const [field = '', dir = 'asc'] = raw.split(':');
      if (!(fields as readonly string[]).includes(field)) {
        ctx.addIssue({ code: 'custom', message: `sort by one of: ${fields.join(', ')}` });
        return z.NEVER;
      }
      return { field: field as F[number], dir: dir.toLowerCase() === 'desc' ? 'desc' : 'asc' } as {
        field: F[number];
        dir: 'asc' | 'desc';
      };
    });

/**
 * `GET /sites/{clusterId}/<kind>` query. `search` is space-separated words, each of which must
 * match one of the kind's searchable fields or a label name or value (case-insensitive). `query`
 * holds label clauses `labels["k"] == "v"` joined by `&&`, which clicking a label chip appends.
 */
export const resourceListQuerySchema = <F extends readonly [string, ...string[]]>(sortFields: F) =>
  z.object({
    limit: z.coerce.number().int().min(1).max(resourceListMaxLimit).default(resourcePageSize),
    startKey: z.string().max(512).default(''),
    search: z.string().max(256).default(''),
    query: z.string().max(1024).default(''),
    sort: sortParamSchema(sortFields).optional(),
    searchAsRoles: z.string().max(8).optional(),
  });

/** One page of a resource list. */
export const resourceListResponseSchema = <T extends z.ZodTypeAny>(item: T) =>
  z.object({
    items: z.array(item),
    /** The key of the next page; '' at the end. */
    startKey: z.string(),
    /** How many match the search, over all pages. */
    totalCount: z.number().int(),
  });

/** `GET sites/{clusterId}/resources/check`: whether the user may reach any resource yet. */
export const resourcesCheckResponseSchema = z.object({ hasResource: z.boolean() });
export type ResourcesCheckResponse = z.infer<typeof resourcesCheckResponseSchema>;
