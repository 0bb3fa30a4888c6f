import { secretPlaceholder, type TrustedClusterItem } from '@postern/contracts';

export const mainRootYaml = `kind: trusted_cluster
version: v2
metadata:
  name: main.example.com
  revision: '3'
spec:
  enabled: true
  token: ${secretPlaceholder}
  web_proxy_addr: main.example.com:3080
  role_map:
    - remote: access
      local: [access]
`;

const yamlFor = (name: string, enabled: boolean) =>
  mainRootYaml.replaceAll('main.example.com', name).replace('true', String(enabled));

/** `GET /v1/webapi/trustedcluster` as the server sends it, out of order: the client sorts. */
export const trustedClusterFixtures: TrustedClusterItem[] = [
  {
    id: 'trusted_cluster:staging.example.com',
    kind: 'trusted_cluster',
    name: 'staging.example.com',
    content: yamlFor('staging.example.com', false),
    status: { state: 'disabled' },
  },
  {
    id: 'trusted_cluster:main.example.com',
    kind: 'trusted_cluster',
    name: 'main.example.com',
    content: mainRootYaml,
    status: { state: 'connected' },
  },
  {
    id: 'trusted_cluster:eu.example.com',
    kind: 'trusted_cluster',
    name: 'eu.example.com',
    content: yamlFor('eu.example.com', true),
    status: {
      state: 'connecting',
      error: 'dial eu.example.com:3080: connection refused; retrying',
    },
  },
];
