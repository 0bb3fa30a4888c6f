import type { AccessRequestJson } from '@postern/contracts';
import type { Actor } from '../access/actor.js';
import { effectiveState, type AccessRequestResource } from './access-request.js';

/** Whether the actor may review it: not theirs, roles they review, pending, not yet reviewed. */
export function canReview(actor: Actor, request: AccessRequestResource, now: number): boolean {
  if (request.spec.user === actor.name) return false;
  if (effectiveState(request, now) !== 'PENDING') return false;
  if (request.spec.reviews.some((review) => review.author === actor.name)) return false;
  return mayReviewRolesOf(actor, request);
}

export const mayReviewRolesOf = (actor: Actor, request: AccessRequestResource) =>
  actor.roleSet === null || actor.roleSet.mayReviewRoles(request.spec.roles);

/** A request as the API shows it to `actor`. */
export function accessRequestJson(
  request: AccessRequestResource,
  actor: Actor,
  now: number,
): AccessRequestJson {
  const { spec } = request;
  const state = effectiveState(request, now);
  const thresholds = Object.values(spec.thresholds).flat();
  return {
    id: request.metadata.name,
    state,
    user: spec.user,
    roles: spec.roles,
    resources: spec.resources,
    reason: spec.reason,
    resolveReason: spec.resolveReason,
    created: spec.created,
    requestExpires: spec.requestExpires,
    accessExpires: spec.accessExpires,
    reviews: spec.reviews,
    suggestedReviewers: spec.suggestedReviewers,
    thresholds: [...new Map(thresholds.map((t) => [t.name, t])).values()],
    reviewable: canReview(actor, request, now),
    assumable: spec.user === actor.name && state === 'APPROVED',
  };
}
