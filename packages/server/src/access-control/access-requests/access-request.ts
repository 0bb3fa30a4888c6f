import type { AccessRequestState, ResourceId, ReviewVerdict } from '@postern/contracts';
import type { RequestThreshold } from '../rbac/expand.js';

export interface StoredReview {
  author: string;
  state: ReviewVerdict;
  reason: string;
  created: string;
}

/** An access request as stored under `/access_requests/<uuid>`. */
export interface AccessRequestResource {
  kind: 'access_request';
  version: 'v3';
  metadata: { name: string; revision?: string };
  spec: {
    user: string;
    roles: string[];
    resources: ResourceId[];
    reason: string;
    /** The decided state; EXPIRED is worked out from the times (effectiveState). */
    state: Exclude<AccessRequestState, 'EXPIRED'>;
    created: string;
    /** A pending request nobody decides by then is expired. */
    requestExpires: string;
    /** Approved access ends then. */
    accessExpires: string;
    suggestedReviewers: string[];
    /**
     * Per requested role, the thresholds of the requester's roles at creation: later edits to
     * those roles do not move the goalposts of a request already under review.
     */
    thresholds: Record<string, RequestThreshold[]>;
    reviews: StoredReview[];
    resolveReason: string;
  };
}

/** The state as people see it now: a pending or approved request past its time is EXPIRED. */
export function effectiveState(request: AccessRequestResource, now: number): AccessRequestState {
  const { state, requestExpires, accessExpires } = request.spec;
  if (state === 'PENDING' && Date.parse(requestExpires) <= now) return 'EXPIRED';
  if (state === 'APPROVED' && Date.parse(accessExpires) <= now) return 'EXPIRED';
  return state;
}

/**
 * What the reviews so far decide (reference semantics). Each reviewer counts once (their first
 * review). A request is denied as soon as any threshold's denials are reached, and approved when
 * every requested role has some threshold whose approvals are reached; otherwise it waits.
 */
export function decide(
  thresholds: Readonly<Record<string, readonly RequestThreshold[]>>,
  reviews: readonly StoredReview[],
): 'PENDING' | 'APPROVED' | 'DENIED' {
  const verdicts = new Map<string, ReviewVerdict>();
  for (const review of reviews)
    if (!verdicts.has(review.author)) verdicts.set(review.author, review.state);
  const count = (verdict: ReviewVerdict) =>
    [...verdicts.values()].filter((v) => v === verdict).length;
  const approvals = count('APPROVED');
  const denials = count('DENIED');
  const sets = Object.values(thresholds);
  if (sets.some((set) => set.some((t) => denials >= t.deny))) return 'DENIED';
  if (sets.length > 0 && sets.every((set) => set.some((t) => approvals >= t.approve))) {
    return 'APPROVED';
  }
  return 'PENDING';
}
