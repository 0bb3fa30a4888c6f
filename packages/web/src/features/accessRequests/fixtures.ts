import type { AccessRequestJson } from '@postern/contracts';

const request = (
  overrides: Partial<AccessRequestJson> & Pick<AccessRequestJson, 'id'>,
): AccessRequestJson => ({
  state: 'PENDING',
  user: 'alice',
  roles: ['dba'],
  resources: [],
  reason: 'rotate the replica',
  resolveReason: '',
  created: '2024-03-01T10:00:00Z',
  requestExpires: '2024-03-02T10:00:00Z',
  accessExpires: '2024-03-01T18:00:00Z',
  reviews: [],
  suggestedReviewers: ['bob'],
  thresholds: [{ name: 'default', approve: 1, deny: 1 }],
  reviewable: false,
  assumable: false,
  ...overrides,
});

export const pendingRequest = request({ id: '3f0c1a2b-1111-4c3d-8e9f-0a1b2c3d4e5f' });

export const approvedRequest = request({
  id: '7a8b9c0d-2222-4e1f-9a2b-3c4d5e6f7a8b',
  state: 'APPROVED',
  roles: [],
  resources: [{ kind: 'node', clusterName: 'localhost', name: 'db-1' }],
  reason: 'deploy hotfix',
  resolveReason: 'ok for today',
  created: '2024-03-01T09:00:00Z',
  reviews: [
    { author: 'bob', state: 'APPROVED', reason: 'ok for today', created: '2024-03-01T09:30:00Z' },
  ],
  assumable: true,
});

/** Someone else's pending request that the caller may review. */
export const reviewableRequest = request({
  id: '9d8c7b6a-3333-4f2e-8d1c-0b9a8f7e6d5c',
  user: 'carol',
  roles: ['auditor', 'dba'],
  reason: '',
  created: '2024-03-01T11:00:00Z',
  suggestedReviewers: ['alice'],
  reviewable: true,
});

/** `GET accessrequests?scope=mine` for alice: newest first. */
export const myRequestFixtures: AccessRequestJson[] = [pendingRequest, approvedRequest];
/** `GET accessrequests?scope=review` for alice. */
export const reviewRequestFixtures: AccessRequestJson[] = [reviewableRequest];
