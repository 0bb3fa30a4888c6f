import { z } from 'zod';

/** What a join token lets an agent become (reference §1.11). Only Node is acted on so far. */
export const joinTokenRoles = [
  'Node',
  'App',
  'Db',
  'Kube',
  'WindowsDesktop',
  'Trusted_cluster',
] as const;
export type JoinTokenRole = (typeof joinTokenRoles)[number];

export const joinMethods = ['token', 'ec2', 'iam'] as const;

/** Spec §9: the label that lets Discover recognise the agent that joined with a token. */
export const internalResourceIdLabel = 'teleport.internal/resource-id';

const labelValues = z.union([z.string(), z.array(z.string())]);

/** `POST /v1/webapi/token`. */
export const createJoinTokenRequestSchema = z.object({
  roles: z.array(z.enum(joinTokenRoles)).min(1, 'name at least one role').max(5),
  join_method: z.enum(joinMethods).default('token'),
  allow: z
    .array(z.object({ aws_account: z.string().max(64), aws_arn: z.string().max(256).optional() }))
    .max(32)
    .default([]),
  suggested_agent_matcher_labels: z.record(z.string().max(256), labelValues).default({}),
  /** How long it lasts (`30m`, `24h`): 30 minutes unless asked, at most 30 days (Join Tokens). */
  ttl: z.string().trim().max(32).optional(),
});
export type CreateJoinTokenRequest = z.input<typeof createJoinTokenRequestSchema>;

export const joinTokenJsonSchema = z.object({
  /** The secret itself: shown once, to put in the agent's `--token`. */
  id: z.string(),
  /** RFC 3339. */
  expiry: z.string(),
  roles: z.array(z.enum(joinTokenRoles)),
  suggestedLabels: z.array(z.object({ name: z.string(), value: z.string() })),
  /** The `teleport.internal/resource-id` value the joining agent will carry. */
  internalResourceId: z.string(),
});
export type JoinTokenJson = z.infer<typeof joinTokenJsonSchema>;

/** The TTLs Join Tokens offers (any duration up to 30 days is accepted). */
export const joinTokenTtlSuggestions = ['15m', '30m', '1h', '8h', '24h', '168h'] as const;

/**
 * A live join token as Join Tokens lists it (reference §1.11 [now]): never the secret, which is
 * not stored. `id` (the start of the secret's SHA-256) names it to delete it, as `postern tokens
 * rm` does; `safeName` shows its last four characters, so its holder can tell which it is.
 */
export const joinTokenListItemSchema = z.object({
  id: z.string(),
  safeName: z.string(),
  roles: z.array(z.enum(joinTokenRoles)),
  method: z.enum(joinMethods),
  /** RFC 3339. */
  expiry: z.string(),
  suggestedLabels: z.array(z.object({ name: z.string(), value: z.string() })),
  internalResourceId: z.string(),
  createdAt: z.string(),
  createdBy: z.string(),
  /** A token from the config file, which never expires: Postern has none (reference field). */
  isStatic: z.boolean(),
});
export type JoinTokenListItem = z.infer<typeof joinTokenListItemSchema>;

export const joinTokenListSchema = z.object({ items: z.array(joinTokenListItemSchema) });
export type JoinTokenList = z.infer<typeof joinTokenListSchema>;
