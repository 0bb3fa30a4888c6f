import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import { AccessRequestsStore } from '../access-control/access-requests/access-requests.store.js';
import type { AccessRequestResource } from '../access-control/access-requests/access-request.js';
import type { TestApp } from './app-harness.testkit.js';

/**
 * An access request of `user` for `roles`, already approved (as reviews would leave it), written
 * to the cluster's storage; resolves with its id once this proxy's watched requests hold it, so
 * it can be assumed (renew with `requestId`, or a certificate's extension) at once.
 */
export async function approvedRequest(
  app: TestApp,
  user: string,
  roles: string[],
  { accessMs = 3_600_000 }: { accessMs?: number } = {},
): Promise<string> {
  const now = app.clock.now();
  const id = randomUUID();
  const request: AccessRequestResource = {
    kind: 'access_request',
    version: 'v3',
    metadata: { name: id },
    spec: {
      user,
      roles,
      resources: [],
      reason: 'a test',
      state: 'APPROVED',
      created: new Date(now).toISOString(),
      requestExpires: new Date(now + accessMs).toISOString(),
      accessExpires: new Date(now + accessMs).toISOString(),
      suggestedReviewers: [],
      thresholds: {},
      reviews: [],
      resolveReason: 'approved in a test',
    },
  };
  await new AccessRequestsStore(app.backend).create(request);
  await vi.waitFor(() => expect(app.context.access.requests.cache.get(id)).toBeDefined());
  return id;
}
