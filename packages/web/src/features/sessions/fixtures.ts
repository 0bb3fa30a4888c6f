import type { ActiveSessionJson } from '@postern/contracts';

/** `GET /v1/webapi/sites/{clusterId}/sessions` items as the server sends them. */
export const sessionFixtures: ActiveSessionJson[] = [
  {
    kind: 'ssh',
    id: '5f2b8c1e-0d4a-4c3e-9b7a-1a2b3c4d5e6f',
    namespace: 'default',
    login: 'root',
    created: '2024-03-01T10:00:00Z',
    last_active: '2024-03-01T10:20:00Z',
    server_id: '9c1d2e3f-aaaa-4bbb-8ccc-0d1e2f3a4b5c',
    server_hostname: 'db-1',
    server_addr: '10.0.0.12:22',
    cluster_name: 'root',
    owner: 'alice',
    terminal_params: { w: 120, h: 40 },
    parties: [
      {
        id: 'p1',
        user: 'alice',
        mode: 'peer',
        server_id: '9c1d2e3f-aaaa-4bbb-8ccc-0d1e2f3a4b5c',
        last_active: '2024-03-01T10:20:00Z',
      },
      {
        id: 'p2',
        user: 'bob',
        mode: 'observer',
        server_id: '9c1d2e3f-aaaa-4bbb-8ccc-0d1e2f3a4b5c',
        last_active: '2024-03-01T10:15:00Z',
      },
    ],
    participantModes: ['observer', 'peer'],
    moderated: false,
    command: '',
  },
  {
    kind: 'ssh',
    id: '7a8b9c0d-1111-4e2f-8a3b-4c5d6e7f8a9b',
    namespace: 'default',
    login: 'deploy',
    created: '2024-03-01T09:00:00Z',
    last_active: '2024-03-01T10:20:00Z',
    server_id: '1b2c3d4e-bbbb-4ccc-8ddd-5e6f7a8b9c0d',
    server_hostname: 'web-1',
    server_addr: '',
    cluster_name: 'root',
    owner: 'carol',
    terminal_params: { w: 80, h: 24 },
    parties: [
      {
        id: 'p3',
        user: 'carol',
        mode: 'peer',
        server_id: '1b2c3d4e-bbbb-4ccc-8ddd-5e6f7a8b9c0d',
        last_active: '2024-03-01T10:20:00Z',
      },
    ],
    participantModes: [],
    moderated: false,
    command: '',
  },
];
