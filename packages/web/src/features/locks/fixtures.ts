import type { LockJson } from '@postern/contracts';

/** `GET /v1/webapi/sites/{clusterId}/locks` as the server sends it. */
export const lockFixtures: LockJson[] = [
  {
    name: '0b6c7a4e-1111-4d1e-9a51-3a1f2b3c4d5e',
    message: 'under review',
    expires: '',
    createdAt: '2024-03-01T10:00:00Z',
    createdBy: 'admin',
    targets: [{ kind: 'user', name: 'mallory' }],
  },
  {
    name: '7f3e2d1c-2222-4b5a-8c9d-0e1f2a3b4c5d',
    message: '',
    expires: '2024-03-02T18:30:00Z',
    createdAt: '2024-03-02T10:30:00Z',
    createdBy: 'cli:root',
    targets: [{ kind: 'role', name: 'contractors' }],
  },
];
