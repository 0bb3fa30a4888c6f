import { z } from 'zod';

/**
 * Access requests (spec §1, §3; docs/access-requests.md): a user asks for roles, or for specific
 * resources, with a reason; reviewers approve or deny; an approved request is assumed through the
 * renew call (`requestId`) until it expires. The states are the reference system's.
 */
export const accessRequestStates = [
  'PENDING',
  'APPROVED',
  'DENIED',
  'PROMOTED',
  'EXPIRED',
] as const;
export type AccessRequestState = (typeof accessRequestStates)[number];

/** A review's verdict. */
export const reviewVerdicts = ['APPROVED', 'DENIED'] as const;
export type ReviewVerdict = (typeof reviewVerdicts)[number];

/** What kinds of resource a request may name; each wing's kind joins as it can be requested. */
export const requestableResourceKinds = [
  'node',
  'app',
  'db',
  'kube_cluster',
  'windows_desktop',
] as const;
export type RequestableResourceKind = (typeof requestableResourceKinds)[number];

const name = z.string().trim().min(1, 'must not be empty').max(256, 'at most 256 characters');

export const resourceIdSchema = z.strictObject({
  kind: z.enum(requestableResourceKinds),
  /** The cluster that holds it: the local cluster's name (or empty for it). */
  clusterName: z.string().max(256).default(''),
  name,
});
export type ResourceId = z.infer<typeof resourceIdSchema>;

/** `POST /sites/{clusterId}/accessrequests`: roles, resources, or both; a reason when the role asks. */
export const createAccessRequestSchema = z
  .strictObject({
    roles: z.array(name).max(64, 'at most 64 roles').default([]),
    resources: z.array(resourceIdSchema).max(128, 'at most 128 resources').default([]),
    reason: z.string().max(4096, 'at most 4096 characters').default(''),
    /** Who the requester would like to review it, beside the roles' suggested reviewers. */
    suggestedReviewers: z.array(name).max(32).default([]),
    /** How long the access should last once approved ('4h'); at most the roles' max_duration. */
    maxDuration: z.string().max(32).optional(),
    /** Checks and answers what would be created (the roles a resource request needs), saving nothing. */
    dryRun: z.boolean().default(false),
  })
  .refine((body) => body.roles.length > 0 || body.resources.length > 0, {
    message: 'name at least one role or resource',
    path: ['roles'],
  });
export type CreateAccessRequest = z.input<typeof createAccessRequestSchema>;

/** `POST /sites/{clusterId}/accessrequests/{requestId}/reviews`. */
export const submitReviewSchema = z.strictObject({
  state: z.enum(reviewVerdicts),
  reason: z.string().max(4096, 'at most 4096 characters').default(''),
});
export type SubmitReview = z.input<typeof submitReviewSchema>;

export const accessReviewJsonSchema = z.object({
  author: z.string(),
  state: z.enum(reviewVerdicts),
  reason: z.string(),
  /** RFC 3339. */
  created: z.string(),
});
export type AccessReviewJson = z.infer<typeof accessReviewJsonSchema>;

/** One threshold of the requested roles, as the request counts it. */
export const thresholdJsonSchema = z.object({
  name: z.string(),
  approve: z.number().int(),
  deny: z.number().int(),
});

export const accessRequestJsonSchema = z.object({
  id: z.string(),
  state: z.enum(accessRequestStates),
  user: z.string(),
  roles: z.array(z.string()),
  resources: z.array(resourceIdSchema),
  reason: z.string(),
  /** Why it was approved or denied: the deciding review's reason. */
  resolveReason: z.string(),
  created: z.string(),
  /** A pending request that nobody decides expires at this time (RFC 3339). */
  requestExpires: z.string(),
  /** When the access ends once approved: at most created + max_duration (RFC 3339). */
  accessExpires: z.string(),
  reviews: z.array(accessReviewJsonSchema),
  suggestedReviewers: z.array(z.string()),
  thresholds: z.array(thresholdJsonSchema),
  /** Whether the caller may review it now (not theirs, allowed, not yet reviewed by them, pending). */
  reviewable: z.boolean(),
  /** Whether the caller may assume it now (theirs, approved, not expired). */
  assumable: z.boolean(),
});
export type AccessRequestJson = z.infer<typeof accessRequestJsonSchema>;

/** `GET /sites/{clusterId}/accessrequests?scope=mine|review|all`. */
export const accessRequestScopes = ['mine', 'review', 'all'] as const;
export type AccessRequestScope = (typeof accessRequestScopes)[number];

export const accessRequestListSchema = z.object({ items: z.array(accessRequestJsonSchema) });
export type AccessRequestList = z.infer<typeof accessRequestListSchema>;

/** Request ids are UUIDs. */
export const isAccessRequestId = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);

/** `POST /ssh/certs/assume` (signed): the CLI's certificate again, assuming these requests. */
export const assumeCertRequestSchema = z.strictObject({
  pub_key: z.string().min(1).max(4096),
  /** Approved requests of the caller; empty drops every assumed request. */
  request_ids: z.array(z.string().max(64)).max(8).default([]),
  ttl: z.number().int().positive().optional(),
});
export type AssumeCertRequest = z.input<typeof assumeCertRequestSchema>;
