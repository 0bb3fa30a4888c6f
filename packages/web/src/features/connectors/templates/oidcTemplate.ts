import { ssoPaths } from '@postern/contracts';

/** Where "New connector → OIDC" starts: every field explained, values to replace marked. */
export const oidcTemplate = (
  origin: string,
) => `# An OpenID Connect connector: people sign in at your identity provider
# (Google, Okta, Keycloak, Entra ID, ...). Replace the example values.
kind: oidc
version: v3
metadata:
  # The connector's name; the command line signs in with \`postern login --auth my-oidc\`.
  name: my-oidc
spec:
  # Shown on the login page as "Sign in with <display>".
  display: My Identity Provider
  # The provider's issuer: <issuer_url>/.well-known/openid-configuration must answer.
  issuer_url: https://idp.example.com/
  # From the application (client) you register at the provider.
  client_id: example-client-id
  client_secret: example-client-secret
  # Register this exact URL at the provider as the redirect (callback) URL.
  redirect_url: ${origin}${ssoPaths.callback('oidc')}
  # Scopes asked beyond openid, for the claims the mapping below reads.
  scope: [email, groups]
  # A claim's value grants roles; a sign-in that matches no entry is refused.
  # Claims also become traits that roles can use, e.g. logins: ['{{external.email}}'].
  claims_to_roles:
    - claim: groups
      value: admins
      roles: [editor]
    - claim: groups
      value: developers
      roles: [access]
`;
