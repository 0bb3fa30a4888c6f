import type { ClusterJson } from '@postern/contracts';

/** `GET /v1/webapi/sites` as the server sends it: a root and an offline leaf. */
export const clusterFixtures: ClusterJson[] = [
  {
    name: 'root.example.com',
    lastConnected: '2024-03-01T10:20:30Z',
    status: 'online',
    nodeCount: 3,
    publicURL: 'root.example.com:3080',
    authVersion: '0.1.0',
    proxyVersion: '0.1.0',
  },
  {
    name: 'leaf-a',
    lastConnected: '0001-01-01T00:00:00Z',
    status: 'offline',
    nodeCount: 0,
    publicURL: 'leaf-a.example.com:3080',
    authVersion: '0.0.9',
    proxyVersion: '0.0.9',
  },
];
