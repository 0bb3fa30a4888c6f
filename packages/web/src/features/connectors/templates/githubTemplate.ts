import { ssoPaths } from '@postern/contracts';

/** Where "New connector → GitHub" starts: every field explained, values to replace marked. */
export const githubTemplate = (
  origin: string,
) => `# A GitHub connector: people sign in with GitHub, and their teams grant roles.
# Create an OAuth app under your organization's settings, then replace the example values.
kind: github
version: v3
metadata:
  # The connector's name; the command line signs in with \`postern login --auth github\`.
  name: github
spec:
  # Shown on the login page as "Sign in with <display>".
  display: GitHub
  # From the OAuth app.
  client_id: example-client-id
  client_secret: example-client-secret
  # The OAuth app's "Authorization callback URL" must be this exact URL.
  redirect_url: ${origin}${ssoPaths.callback('github')}
  # Membership of a team in an organization grants roles; no match, no sign-in.
  # The GitHub login becomes the trait {{external.username}} that roles can use.
  teams_to_roles:
    - organization: my-org
      team: admins
      roles: [editor]
    - organization: my-org
      team: developers
      roles: [access]
`;
