import { z } from 'zod';
import { accessSchema, aclAreas, type UserAcl } from './acl.js';
import { clusterJsonSchema } from './clusters.js';
import { requestAccessStrategies } from './roles.js';

/** Every area of spec §3 with its five flags (integrations also `use`), and the desktop flags. */
export const userAclSchema = z.object({
  ...Object.fromEntries(
    aclAreas.map((area) => [
      area,
      area === 'integrations' ? accessSchema.extend({ use: z.boolean() }) : accessSchema,
    ]),
  ),
  // Spec §3: the desktop flags default to true, so a server that leaves them out (older, or
  // one without desktops) still decodes, and grants what the spec's defaults grant.
  clipboardSharingEnabled: z.boolean().default(true),
  desktopSessionRecording: z.boolean().default(true),
  directorySharing: z.boolean().default(true),
}) as unknown as z.ZodType<UserAcl>;

/**
 * `GET /v1/webapi/sites/{clusterId}/context` (reference §1.4): who the user is and what the
 * console may offer them. The server still checks every call; the ACL only says what MIGHT be
 * allowed (a rule with a `where` clause counts as possible).
 */
export const userContextSchema = z.object({
  userName: z.string(),
  /** 'sso' for users of an identity provider; 'local' otherwise. */
  authType: z.enum(['local', 'sso']),
  /**
   * Postern's own addition, for Account Settings: the user's roles (sorted) and the SSH logins
   * those roles allow on some server (sorted, traits filled in). Servers may narrow the logins.
   */
  roles: z.array(z.string()).default([]),
  logins: z.array(z.string()).default([]),
  userAcl: userAclSchema,
  /** The same shape as one element of `GET /sites`. */
  cluster: clusterJsonSchema,
  /** From the roles' options.request_access and request_prompt (strictest wins). */
  accessStrategy: z.object({ type: z.enum(requestAccessStrategies), prompt: z.string() }),
  accessCapabilities: z.object({
    requestableRoles: z.array(z.string()),
    suggestedReviewers: z.array(z.string()),
  }),
  /** Set when the session carries roles of an approved access request; '' otherwise. */
  accessRequestId: z.string(),
  /**
   * Postern's own addition, for the top bar: when the assumed request's access ends (RFC 3339),
   * '' when none is assumed, and the roles it adds.
   */
  accessRequestExpires: z.string().default(''),
  assumedRoles: z.array(z.string()).default([]),
  /** Roles the user may search resources as, for a resource request (reference `allowedSearchAsRoles`). */
  allowedSearchAsRoles: z.array(z.string()).default([]),
});
export type UserContext = z.infer<typeof userContextSchema>;
