import { z } from 'zod';

/**
 * Auth connectors (spec §3 resource, §7 `github/{name?}` and the same shape for `oidc` and `saml`).
 * A connector is a resource of kind `oidc`, `saml` or `github`, shown to people as YAML.
 * Secrets (client secrets, signing keys) never leave the server in clear: the YAML the console
 * gets has `secretPlaceholder` in their place, and a PUT that keeps the placeholder keeps the
 * stored secret.
 */
export const connectorKinds = ['oidc', 'saml', 'github'] as const;
export type ConnectorKind = (typeof connectorKinds)[number];

/** Written in place of a secret in the YAML the server returns. */
export const secretPlaceholder = '**********';

/** `{id: '<kind>:<name>', kind, name, content}` as the Auth Connectors screen lists them. */
export const connectorItemSchema = z.object({
  id: z.string(),
  kind: z.enum(connectorKinds),
  name: z.string(),
  /** Shown on the login button and the card; from the connector's `display`. */
  displayName: z.string().optional(),
  /** The connector as YAML, secrets replaced by the placeholder. */
  content: z.string(),
});
export type ConnectorItem = z.infer<typeof connectorItemSchema>;

export const connectorItemId = (kind: ConnectorKind, name: string) => `${kind}:${name}`;

/** `POST /v1/webapi/{kind}` and `PUT /v1/webapi/{kind}/{name}`: the YAML. */
export const connectorContentRequestSchema = z.object({
  content: z
    .string()
    .min(1)
    .max(256 * 1024),
});

/** The connector calls: `GET`/`POST` on the kind, `PUT`/`DELETE` on a connector by name. */
export const connectorPaths = {
  list: (kind: ConnectorKind) => `/v1/webapi/${kind}`,
  item: (kind: ConnectorKind, name: string) => `/v1/webapi/${kind}/${encodeURIComponent(name)}`,
} as const;

/**
 * Where each flow lives (the server's handler routes, spec §2). `redirect_url` must be a path on
 * this proxy (same origin); the console passes where the user was going.
 */
export const ssoPaths = {
  /** `GET …?connector_id=<name>&redirect_url=<path>`: redirects to the provider. */
  loginWeb: (kind: ConnectorKind) => `/v1/webapi/${kind}/login/web`,
  /** OIDC and GitHub: the provider returns here (register this URL at the provider). */
  callback: (kind: 'oidc' | 'github') => `/v1/webapi/${kind}/callback`,
  /** SAML: the assertion consumer service (ACS), one per connector. */
  samlAcs: (name: string) => `/v1/webapi/saml/acs/${encodeURIComponent(name)}`,
  /** SAML: this proxy's service provider metadata for a connector. */
  samlMetadata: (name: string) => `/v1/webapi/saml/metadata/${encodeURIComponent(name)}`,
} as const;

/** Where a failed SSO login lands (spec §2): the message page says why. */
export const ssoErrorRoutes = {
  login: '/web/msg/error/login',
  callback: '/web/msg/error/login/callback',
  unauthorized: '/web/msg/error/login/auth',
  success: '/web/msg/info/login_success',
} as const;
