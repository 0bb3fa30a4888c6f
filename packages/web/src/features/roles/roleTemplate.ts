/**
 * Where "Create role" starts: a v7 role in the reference format, with server access (logins and
 * node labels) and a rule, each explained, so an admin edits rather than writes from nothing.
 */
export const newRoleTemplate = `kind: role
version: v7
metadata:
  name: new-role
  description: Describe what this role is for
spec:
  allow:
    # Servers: the logins this role may use, and labels that select the servers.
    logins: ['{{internal.logins}}']
    node_labels:
      env: staging
    # Postern resources: which kinds, and what may be done with them.
    rules:
      - resources: [session]
        verbs: [list, read]
  deny: {}
  options:
    max_session_ttl: 8h
`;
