import { z } from 'zod';
import { resourceListMaxLimit, resourcePageSize } from './resource-list.js';

/**
 * Manage Bots (docs/bots.md): the console's view of machine identities, which `postern bots` on
 * the host also manages. A bot is the user `bot-<name>`; its running copies are instances, each
 * joined once with a single-use token and renewing its own short-lived certificate since.
 * Paths follow the reference's (`sites/{clusterId}/machine-id/bot`).
 */

/** Lower case, so that `bot-<name>` is one user name in every tool that shows it. */
export const botNamePattern = /^[a-z0-9][a-z0-9._-]{0,58}$/;
export const botNameRule =
  "lower-case letters, digits, '.', '_' and '-' (at most 59), starting with a letter or digit";

/** A join token's life: an hour unless asked otherwise, at most a week (`token_ttl`). */
export const botTokenTtlSuggestions = ['15m', '1h', '8h', '24h', '168h'] as const;

const roleName = z.string().trim().min(1, 'must not be empty').max(128);
const loginName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(256, 'at most 256 characters')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f\s]*$/, 'must not hold spaces or control characters');

export const botRolesSchema = z
  .array(roleName)
  .min(1, 'a bot needs at least one role')
  .max(64, 'at most 64 roles');
export const botLoginsSchema = z.array(loginName).max(100, 'at most 100 logins');

/**
 * CI jobs whose OpenID Connect ID token matches this rule join without a join token
 * (docs/bots.md): the issuer (an https URL the proxy fetches the keys from), the audience the
 * job asks its token for, and claims the token must carry, at least one.
 */
export const botOidcRuleSchema = z.object({
  issuer: z.string().trim().min(1, 'name the CI system that issues the ID token').max(512),
  audience: z.string().trim().min(1, 'name the audience the CI job asks its token for').max(256),
  claims: z
    .record(
      z.string().trim().min(1, 'a claim needs a name').max(128),
      z.string().trim().min(1, 'a claim needs a value').max(512),
    )
    .refine((claims) => Object.keys(claims).length > 0, {
      message:
        'name at least one claim, such as repository=acme/deploy: without one any job could join',
    })
    .refine((claims) => Object.keys(claims).length <= 32, { message: 'at most 32 claims' }),
});
export type BotOidcRuleJson = z.infer<typeof botOidcRuleSchema>;

/** One running copy of a bot: joined once, renewing since (its generation counts renewals). */
export const botInstanceJsonSchema = z.object({
  id: z.string(),
  generation: z.number().int(),
  joinedAt: z.string(),
  renewedAt: z.string(),
  /** When its current certificate ends; it is listed for a day after that. */
  certExpires: z.string(),
  /** Where it last joined or renewed from. */
  addr: z.string().optional(),
});
export type BotInstanceJson = z.infer<typeof botInstanceJsonSchema>;

export const botJsonSchema = z.object({
  name: z.string(),
  /** The user it acts as: `bot-<name>`. */
  user: z.string(),
  roles: z.array(z.string()),
  logins: z.array(z.string()),
  createdAt: z.string(),
  /** How copies join: single-use tokens, or CI jobs' ID tokens matching a rule (and tokens). */
  joinMethod: z.enum(['token', 'oidc']),
  /** The ID token rule, for `oidc` (set with `postern bots add|update --oidc-…`). */
  oidc: botOidcRuleSchema.optional(),
  instances: z.array(botInstanceJsonSchema),
  /** Join tokens not used yet: their last four characters, never the token. */
  tokens: z.array(z.object({ hint: z.string(), expires: z.string() })),
});
export type BotJson = z.infer<typeof botJsonSchema>;

/** `GET sites/{clusterId}/machine-id/bot`: bots by name, `search` over names, roles and logins. */
export const botListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(resourceListMaxLimit).default(resourcePageSize),
  /** The last name of the previous page; '' for the first. */
  startKey: z.string().max(64).default(''),
  search: z.string().max(256).default(''),
});
export type BotListQuery = z.input<typeof botListQuerySchema>;

export const botListResponseSchema = z.object({
  items: z.array(botJsonSchema),
  startKey: z.string(),
  totalCount: z.number().int(),
});
export type BotListResponse = z.infer<typeof botListResponseSchema>;

/** A duration from now ('30m', '1h', '1h30m'); the server checks it is at most a week. */
const tokenTtl = z.string().trim().max(32).optional();

/**
 * `POST sites/{clusterId}/machine-id/bot`: a bot whose first copy joins with a token (it comes
 * back, once), or with `oidc`, one that CI jobs join with their ID token (no token then).
 */
export const createBotRequestSchema = z.object({
  name: z.string().trim().regex(botNamePattern, `use ${botNameRule}`),
  roles: botRolesSchema,
  logins: botLoginsSchema.default([]),
  token_ttl: tokenTtl,
  oidc: botOidcRuleSchema.optional(),
});
export type CreateBotRequest = z.input<typeof createBotRequestSchema>;

/**
 * `PUT sites/{clusterId}/machine-id/bot/{name}`: new roles or logins (its copies get them at their
 * next renewal), or a new CI rule.
 */
export const updateBotRequestSchema = z
  .object({
    roles: botRolesSchema.optional(),
    logins: botLoginsSchema.optional(),
    /** A new CI rule, or null to take it away (copies then join with tokens only). */
    oidc: botOidcRuleSchema.nullable().optional(),
  })
  .refine(
    (body) => body.roles !== undefined || body.logins !== undefined || body.oidc !== undefined,
    { message: 'give roles, logins or a CI rule (oidc)' },
  );
export type UpdateBotRequest = z.input<typeof updateBotRequestSchema>;

/** `POST sites/{clusterId}/machine-id/bot/{name}/token`: one more single-use join token. */
export const botTokenRequestSchema = z.object({ token_ttl: tokenTtl });
export type BotTokenRequest = z.input<typeof botTokenRequestSchema>;

/** A join token, shown once: only its hash is stored. */
export const issuedBotTokenSchema = z.object({
  token: z.string(),
  expires: z.string(),
});
export type IssuedBotToken = z.infer<typeof issuedBotTokenSchema>;

export const createBotResponseSchema = z.object({
  bot: botJsonSchema,
  /** Absent for a bot that CI jobs join with their ID token. */
  token: issuedBotTokenSchema.optional(),
});
export type CreateBotResponse = z.infer<typeof createBotResponseSchema>;
