import { ssoPaths } from '@postern/contracts';

const exampleName = 'my-saml';

/** Where "New connector → SAML" starts: every field explained, values to replace marked. */
export const samlTemplate = (
  origin: string,
) => `# A SAML 2.0 connector: people sign in at your identity provider
# (Okta, Entra ID, ADFS, Keycloak, ...). Replace the example values.
kind: saml
version: v2
metadata:
  # The connector's name; it is also part of the ACS URL below, so change both together.
  name: ${exampleName}
spec:
  # Shown on the login page as "Sign in with <display>".
  display: My SAML Provider
  # Where to read the identity provider's metadata (entity ID, sign-in URL, signing certificate).
  # Without a URL, paste the XML instead as entity_descriptor: |
  entity_descriptor_url: https://idp.example.com/saml/metadata
  # The assertion consumer service: register this exact URL at the identity provider.
  acs: ${origin}${ssoPaths.samlAcs(exampleName)}
  # An attribute's value grants roles; a sign-in that matches no entry is refused.
  # Attributes also become traits that roles can use, e.g. logins: ['{{external.username}}'].
  attributes_to_roles:
    - name: groups
      value: admins
      roles: [editor]
    - name: groups
      value: developers
      roles: [access]
`;
