/**
 * A leaf's `trusted_cluster` resource for `root`, joining with `token` at `rootUrl`, mapping the
 * root's `access` role to `localRole` here.
 */
export const trustedClusterYaml = (
  root: { name: string; url: string; token: string },
  localRole: string,
) => `kind: trusted_cluster
version: v2
metadata:
  name: ${root.name}
spec:
  enabled: true
  token: ${root.token}
  web_proxy_addr: ${root.url}
  role_map:
    - remote: access
      local: [${localRole}]
`;
