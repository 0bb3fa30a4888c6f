import { sessionMfaResponseSchema } from './identity/webauthn.js';
import { z } from 'zod';
import { nodeLabelSchema } from './nodes.js';
import {
  resourceListQuerySchema,
  resourceListResponseSchema,
  resourcePageSize,
} from './resource-list.js';

/**
 * Applications (spec §3 App, §7 apps; reference §1.5). The JSON keeps the reference's field names
 * (`publicAddr`, `fqdn`, `clusterId`, `labels` as name/value pairs, `awsConsole`, `awsRoles`) so
 * its clients keep working; the console maps them to its model (launch URL, address with scheme).
 */

/** An app's name: a DNS label, since `<name>.<proxy host>` is its address by default. */
export const appNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const appNameSchema = z
  .string()
  .regex(appNamePattern, 'app names are DNS labels: a-z, 0-9 and inner dashes, 1-63 characters');

/** How the proxy reaches an app: HTTP(S) apps are proxied by host name, TCP apps tunnelled. */
export const appUriSchema = z
  .string()
  .max(2048)
  .refine((uri) => /^(https?|tcp):\/\/[^/\s]+/i.test(uri), {
    message: 'uri must be http://, https:// or tcp://host:port',
  })
  .refine((uri) => !/^tcp:/i.test(uri) || /^tcp:\/\/[^/\s]+:\d{1,5}\/?$/i.test(uri), {
    message: 'a tcp:// uri is tcp://host:port',
  });

/** A host name the app is served at instead of `<name>.<proxy host>`. */
export const publicAddrSchema = z
  .string()
  .max(253)
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i,
    'public_addr is a host name (no scheme, no port, no path)',
  );

/** The resource (`postern create -f app.yaml`, the config file, agents). */
export const appResourceSchema = z.object({
  kind: z.literal('app'),
  version: z.literal('v3').default('v3'),
  metadata: z.object({
    name: appNameSchema,
    description: z.string().max(1024).default(''),
    labels: z.record(z.string().max(256), z.string().max(256)).default({}),
  }),
  spec: z.object({
    uri: appUriSchema,
    public_addr: publicAddrSchema.optional(),
    /** Certificates of an https upstream are checked unless this says not to. */
    insecure_skip_verify: z.boolean().default(false),
    rewrite: z
      .object({
        /** Headers set on every request to the app; `{{internal.logins}}`-style traits allowed. */
        headers: z
          .array(
            z.object({
              name: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'a header name'),
              value: z.string().max(4096),
            }),
          )
          .default([]),
        /** Host names in the app's redirects (`Location`) to rewrite to the app's own address. */
        redirect: z.array(z.string().max(253)).default([]),
      })
      .default({ headers: [], redirect: [] }),
  }),
});
export type AppResource = z.infer<typeof appResourceSchema>;
export type AppResourceInput = z.input<typeof appResourceSchema>;

export const appJsonSchema = z.object({
  kind: z.literal('app'),
  name: z.string(),
  description: z.string(),
  uri: z.string(),
  /** The host name it is served at: its public_addr, or `<name>.<proxy host>`. */
  publicAddr: z.string(),
  /** The app's fully qualified name: the same host name (reference: the launcher's `fqdn`). */
  fqdn: z.string(),
  clusterId: z.string(),
  labels: z.array(nodeLabelSchema),
  /** `tcp://` apps are reached with `postern proxy app`, not launched in the browser. */
  isTcp: z.boolean(),
  /** Reached through an agent's tunnel. */
  tunnel: z.boolean(),
  status: z.enum(['online', 'offline']),
  /** The reference's AWS console fields: always false and empty here (no cloud apps yet). */
  awsConsole: z.boolean(),
  awsRoles: z.array(z.object({ arn: z.string(), display: z.string() })),
});
export type AppJson = z.infer<typeof appJsonSchema>;

export const appSortFields = ['name', 'description', 'publicAddr'] as const;
export type AppSortField = (typeof appSortFields)[number];
export const defaultAppSort: { field: AppSortField; dir: 'asc' | 'desc' } = {
  field: 'name',
  dir: 'asc',
};
export const appsPageSize = resourcePageSize;

/** `GET /sites/{clusterId}/apps`: searched by name, description and public address, and labels. */
export const appListQuerySchema = resourceListQuerySchema(appSortFields);
export type AppListQuery = z.input<typeof appListQuerySchema>;

export const appListResponseSchema = resourceListResponseSchema(appJsonSchema);
export type AppListResponse = z.infer<typeof appListResponseSchema>;

/** `POST /sessions/app` (spec §7): the launcher asks for a session on one app. */
export const createAppSessionRequestSchema = z.object({
  fqdn: z.string().min(1).max(253),
  cluster_name: z.string().max(253).default(''),
  public_addr: z.string().max(253).default(''),
  arn: z.string().max(2048).default(''),
  /** Where in the app to land (path and query), when the launcher was sent by the app itself. */
  path: z.string().max(4096).default('/'),
  /** The answer to a per-session MFA challenge, when the roles ask for one (require_session_mfa). */
  mfa_response: sessionMfaResponseSchema.optional(),
});
export type CreateAppSessionRequest = z.input<typeof createAppSessionRequestSchema>;

/**
 * The answer: where the browser goes next. `value` is a single-use state, good for a minute, that
 * the app's own origin exchanges for the app session cookie (`/x-postern-auth?state=...`); the
 * session itself never passes through the console's origin.
 */
export const createAppSessionResponseSchema = z.object({
  fqdn: z.string(),
  /** The app's origin's exchange URL, with the state in it. */
  redirectUrl: z.string(),
  value: z.string(),
});
export type CreateAppSessionResponse = z.infer<typeof createAppSessionResponseSchema>;

/** `GET apps/{fqdn}/{clusterId?}/{publicAddr?}`: the launcher's check of where an app lives. */
export const resolveAppResponseSchema = z.object({
  fqdn: z.string(),
  clusterId: z.string(),
  publicAddr: z.string(),
  name: z.string(),
});
export type ResolveAppResponse = z.infer<typeof resolveAppResponseSchema>;

/**
 * The path on an app's own origin that turns a launcher's state into the app session cookie,
 * and the cookie's name (`__Host-`: this origin only, Secure, path /).
 */
export const appAuthPath = '/x-postern-auth';
export const appSessionCookie = '__Host-postern-app';
/** The header every request to an app carries: the signed identity (JWT). */
export const appJwtHeader = 'postern-jwt-assertion';
/** Where the proxy publishes the keys that sign that JWT. */
export const jwksPath = '/.well-known/jwks.json';

/** The launcher's route, as the console builds it (spec §2): only with all three parts. */
export function appLaunchPath(app: Pick<AppJson, 'fqdn' | 'clusterId' | 'publicAddr'>): string {
  const seg = encodeURIComponent;
  return `/web/launch/${seg(app.fqdn)}/${seg(app.clusterId)}/${seg(app.publicAddr)}`;
}
