import { secretPlaceholder, type ConnectorItem } from '@postern/contracts';

export const googleYaml = `kind: oidc
version: v3
metadata:
  name: google
  revision: '7'
spec:
  display: Google
  issuer_url: https://accounts.google.com
  client_id: abc.apps.googleusercontent.com
  client_secret: ${secretPlaceholder}
  redirect_url: https://proxy.example.com/v1/webapi/oidc/callback
  claims_to_roles:
    - claim: groups
      value: admins
      roles: [editor]
`;

/** The three lists as `GET /v1/webapi/{oidc,saml,github}` send them. */
export const connectorFixtures: Record<'oidc' | 'saml' | 'github', ConnectorItem[]> = {
  oidc: [
    { id: 'oidc:google', kind: 'oidc', name: 'google', displayName: 'Google', content: googleYaml },
  ],
  saml: [
    {
      id: 'saml:okta',
      kind: 'saml',
      name: 'okta',
      displayName: 'Okta Workforce',
      content: 'kind: saml\nversion: v2\nmetadata:\n  name: okta\n',
    },
  ],
  github: [
    {
      id: 'github:github',
      kind: 'github',
      name: 'github',
      displayName: 'GitHub',
      content: `kind: github\nversion: v3\nmetadata:\n  name: github\nspec:\n  client_secret: ${secretPlaceholder}\n`,
    },
  ],
};
