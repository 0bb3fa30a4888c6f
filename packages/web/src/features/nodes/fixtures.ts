import type { NodeJson, NodeListResponse } from '@postern/contracts';

const node = (overrides: Partial<NodeJson> & Pick<NodeJson, 'id' | 'hostname'>): NodeJson => ({
  siteId: 'root',
  addr: '',
  tunnel: false,
  subKind: 'postern',
  tags: [],
  sshLogins: ['root', 'ubuntu'],
  status: 'online',
  lastHeartbeat: '2024-03-01T10:00:00Z',
  os: 'linux',
  ...overrides,
});

/** `GET /v1/webapi/sites/{clusterId}/nodes` items as the server sends them. */
export const nodeFixtures: NodeJson[] = [
  node({
    id: '9c1d2e3f-aaaa-4bbb-8ccc-0d1e2f3a4b5c',
    hostname: 'db-1',
    addr: '10.0.0.12:3022',
    tags: [
      { name: 'env', value: 'prod' },
      { name: 'role', value: 'database' },
    ],
  }),
  node({
    id: '1b2c3d4e-bbbb-4ccc-8ddd-5e6f7a8b9c0d',
    hostname: 'web-1',
    tunnel: true,
    tags: [{ name: 'env', value: 'staging' }],
    sshLogins: ['deploy'],
    status: 'offline',
  }),
  node({
    id: '2c3d4e5f-cccc-4ddd-8eee-6f7a8b9c0d1e',
    hostname: 'legacy',
    addr: 'legacy.internal:22',
    subKind: 'openssh',
    sshLogins: [],
    lastHeartbeat: '',
  }),
];

export function nodePage(
  items: NodeJson[] = nodeFixtures,
  startKey = '',
  totalCount = items.length,
): NodeListResponse {
  return { items, startKey, totalCount };
}

/** `count` servers named host-01… for paging tests. */
export function manyNodes(count: number): NodeJson[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(2, '0');
    return node({ id: `node-${n}`, hostname: `host-${n}`, addr: `10.0.1.${i + 1}:3022` });
  });
}
