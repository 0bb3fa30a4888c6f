/**
 * Where "Connect to Root Cluster" starts: every field the server needs, each explained, so an
 * admin fills in the root's name, token and address rather than writing the resource from nothing.
 */
export const newTrustedClusterTemplate = `kind: trusted_cluster
version: v2
metadata:
  name: root.example.com   # the root cluster's name
spec:
  enabled: true
  # a token from the root cluster: postern tokens add --type trusted_cluster
  token: ""
  # the root cluster's proxy: host:port
  web_proxy_addr: root.example.com:3080
  role_map:
    - remote: access
      local: [access]
`;
