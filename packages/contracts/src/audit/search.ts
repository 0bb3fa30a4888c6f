import { z } from 'zod';

/** The most events one search request returns (spec §9). */
export const auditFetchLimit = 5000;
/** When a request names no range, search the last 30 days. */
export const auditDefaultRangeMs = 30 * 24 * 3600 * 1000;

const rfc3339 = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an RFC 3339 date-time')
  .transform((value) => new Date(value));

/** Larger limits are clamped, not refused: a client asking for more simply pages. */
const pageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .default(auditFetchLimit)
  .transform((limit) => Math.min(limit, auditFetchLimit));

/** `include`: event types, comma-separated, blanks dropped; undefined when none is left. */
function eventTypesOf(include: string | undefined): string[] | undefined {
  const types = include
    ?.split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  return types?.length ? types : undefined;
}

/**
 * Query of `GET .../events/search` and `.../events/search/sessions` (spec §7). `start` and `end`
 * are accepted as aliases of `from` and `to`. `include` is a comma-separated list of event types.
 */
export const auditSearchQuerySchema = z
  .object({
    from: rfc3339.optional(),
    to: rfc3339.optional(),
    start: rfc3339.optional(),
    end: rfc3339.optional(),
    limit: pageLimit,
    include: z.string().optional(),
    startKey: z.string().max(512).optional(),
    /** Free text matched case-insensitively against the whole event JSON, on the server. */
    search: z.string().max(200).optional(),
    order: z.enum(['asc', 'desc']).default('desc'),
  })
  .transform((query, ctx) => {
    const to = query.to ?? query.end ?? new Date();
    const from = query.from ?? query.start ?? new Date(to.getTime() - auditDefaultRangeMs);
    if (from.getTime() > to.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
    }
    const eventTypes = eventTypesOf(query.include);
    return {
      from,
      to,
      limit: query.limit,
      order: query.order,
      startKey: query.startKey || undefined,
      eventTypes,
      search: query.search?.trim() || undefined,
    };
  });
export type AuditSearchQuery = z.output<typeof auditSearchQuerySchema>;

/**
 * Query of the export's read (`GET /v1/webapi/events/export`): events in the order they were
 * stored, after `startKey`; without one, from the first event at or after `from` (absent: from
 * the start of the log). The answer's startKey is where the next read goes on, even at the end.
 */
export const auditExportQuerySchema = z
  .object({
    from: rfc3339.optional(),
    limit: pageLimit,
    include: z.string().optional(),
    startKey: z.string().max(512).optional(),
  })
  .transform((query) => {
    const eventTypes = eventTypesOf(query.include);
    return {
      ...(query.from ? { from: query.from } : {}),
      limit: query.limit,
      ...(query.startKey ? { startKey: query.startKey } : {}),
      ...(eventTypes ? { eventTypes } : {}),
    };
  });
export type AuditExportQuery = z.output<typeof auditExportQuerySchema>;

/** One audit event as the API returns it: flat fields, the common ones named. */
export const auditEventSchema = z
  .object({
    event: z.string(),
    code: z.string(),
    time: z.string(),
    uid: z.string().optional(),
    user: z.string().optional(),
    cluster_name: z.string().optional(),
  })
  .catchall(z.unknown());
export type AuditEventJson = z.infer<typeof auditEventSchema>;

export const auditSearchResponseSchema = z.object({
  events: z.array(auditEventSchema),
  startKey: z.string(),
});
export type AuditSearchResponse = z.infer<typeof auditSearchResponseSchema>;
