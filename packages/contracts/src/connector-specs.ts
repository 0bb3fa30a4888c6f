import { z } from 'zod';

/**
 * The YAML documents of auth connectors, one schema per kind, strict so a misspelt
 * field is reported at its line instead of being silently ignored. docs/sso.md shows examples.
 *
 * Mapping rules match a value with a glob (`*` any run of characters, `?` one character); a rule
 * whose value matches adds its roles. Traits come from claims (`claims_to_traits`): every value of
 * the claim (a string, or each string of a list) is added to the trait.
 */
const name = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,62}$/,
    'must be 1-63 lowercase letters, digits, dots, dashes or underscores',
  );
const roles = z.array(z.string().min(1)).min(1, 'must name at least one role');
const metadata = z.strictObject({
  name,
  description: z.string().optional(),
  /** Set by the server on every read; a PUT is checked against it (a stale one is a 409). */
  revision: z.string().optional(),
});
const url = z.url({ protocol: /^https?$/ });

/** Trait names as role templates read them (`{{internal.logins}}`, `{{external.groups}}`). */
const traitName = z
  .string()
  .regex(/^[A-Za-z_][\w.-]{0,63}$/, 'must be a trait name: letters, digits, _ . -');
const claimsToTraits = z
  .array(z.strictObject({ claim: z.string().min(1), trait: traitName }))
  .default([]);

export const oidcConnectorSpecSchema = z.strictObject({
  display: z.string().optional(),
  issuer_url: url,
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  /** Where the provider sends people back; defaults to this proxy's `/v1/webapi/oidc/callback`. */
  redirect_url: url.optional(),
  /** Scopes asked for besides `openid`. */
  scope: z.array(z.string().min(1)).default(['email', 'profile']),
  /** The claim that names the user; `email` unless set. */
  username_claim: z.string().min(1).default('email'),
  claims_to_roles: z
    .array(z.strictObject({ claim: z.string().min(1), value: z.string().min(1), roles }))
    .min(1, 'map at least one claim to roles'),
  claims_to_traits: claimsToTraits,
});

export const samlConnectorSpecSchema = z.strictObject({
  display: z.string().optional(),
  /**
   * The IdP: its metadata document (XML), or its URL, or its single sign-on URL (`sso`) and
   * signing certificate (`cert`, PEM) given directly; `sso` and `cert` win over the metadata.
   */
  entity_descriptor: z.string().optional(),
  entity_descriptor_url: url.optional(),
  sso: url.optional(),
  cert: z.string().optional(),
  /** This proxy's SP entity id; defaults to its metadata URL. */
  service_provider_issuer: z.string().optional(),
  acs: url.optional(),
  attributes_to_roles: z
    .array(z.strictObject({ name: z.string().min(1), value: z.string().min(1), roles }))
    .min(1, 'map at least one attribute to roles'),
  attributes_to_traits: z
    .array(z.strictObject({ name: z.string().min(1), trait: traitName }))
    .default([]),
  /** The SP's signing key pair (PEM); the key is a secret. */
  signing_key_pair: z
    .strictObject({ private_key: z.string().min(1), cert: z.string().min(1) })
    .optional(),
});

export const githubConnectorSpecSchema = z.strictObject({
  display: z.string().optional(),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  redirect_url: url.optional(),
  /** Where people sign in (`https://github.com`); GitHub Enterprise Server has its own. */
  endpoint_url: url.default('https://github.com'),
  /** The REST API (`https://api.github.com`). */
  api_endpoint_url: url.default('https://api.github.com'),
  teams_to_roles: z
    .array(
      z.strictObject({
        organization: z.string().min(1),
        team: z.string().min(1),
        roles,
      }),
    )
    .min(1, 'map at least one team to roles'),
});

const document = <K extends string, S extends z.ZodType>(kind: K, spec: S) =>
  z.strictObject({ kind: z.literal(kind), version: z.literal('v3'), metadata, spec });

export const oidcConnectorSchema = document('oidc', oidcConnectorSpecSchema);
export const samlConnectorSchema = document('saml', samlConnectorSpecSchema);
export const githubConnectorSchema = document('github', githubConnectorSpecSchema);

export type OidcConnector = z.infer<typeof oidcConnectorSchema>;
export type SamlConnector = z.infer<typeof samlConnectorSchema>;
export type GithubConnector = z.infer<typeof githubConnectorSchema>;
export type Connector = OidcConnector | SamlConnector | GithubConnector;

export const connectorSchemas = {
  oidc: oidcConnectorSchema,
  saml: samlConnectorSchema,
  github: githubConnectorSchema,
} as const;
