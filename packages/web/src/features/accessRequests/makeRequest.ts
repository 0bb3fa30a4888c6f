import type {
  AccessRequestJson,
  AccessRequestState,
  AccessReviewJson,
  ResourceId,
} from '@postern/contracts';
import { formatDateTime, parseTimestamp } from '../../lib/format';

/** The console's model of an access request (reference §1.9). */
export interface AccessRequest {
  id: string;
  state: AccessRequestState;
  user: string;
  roles: string[];
  resources: ResourceId[];
  /** 'roles: dba, auditor' or 'node: db-1' (both, joined with '; '). */
  requestedText: string;
  reason: string;
  resolveReason: string;
  reviews: AccessReviewJson[];
  suggestedReviewers: string[];
  /** 'bob (approved); suggested: carol'. */
  reviewersText: string;
  thresholds: AccessRequestJson['thresholds'];
  created: Date | undefined;
  createdText: string;
  requestExpiresText: string;
  accessExpires: Date | undefined;
  accessExpiresText: string;
  reviewable: boolean;
  assumable: boolean;
}

export const stateColors: Record<AccessRequestState, string> = {
  PENDING: 'yellow',
  APPROVED: 'green',
  DENIED: 'red',
  PROMOTED: 'blue',
  EXPIRED: 'gray',
};

/** What each requestable kind is called where people read it (the request cart). */
export const resourceKindLabels: Record<ResourceId['kind'], string> = {
  node: 'Server',
  app: 'Application',
  db: 'Database',
  kube_cluster: 'Kubernetes cluster',
  windows_desktop: 'Desktop',
};

export const resourceText = (r: ResourceId) => `${r.kind}: ${r.name}`;

function requestedText(roles: string[], resources: ResourceId[]): string {
  const parts: string[] = [];
  if (roles.length > 0) parts.push(`roles: ${roles.join(', ')}`);
  if (resources.length > 0) parts.push(resources.map(resourceText).join(', '));
  return parts.join('; ');
}

function reviewersText(reviews: AccessReviewJson[], suggested: string[]): string {
  const done = reviews.map((r) => `${r.author} (${r.state.toLowerCase()})`);
  const reviewed = new Set(reviews.map((r) => r.author));
  const waiting = suggested.filter((name) => !reviewed.has(name));
  const parts = [...done];
  if (waiting.length > 0) parts.push(`suggested: ${waiting.join(', ')}`);
  return parts.join('; ');
}

const dateText = (date: Date | undefined, none = '') => (date ? formatDateTime(date) : none);

export function makeRequest(json: AccessRequestJson): AccessRequest {
  const created = parseTimestamp(json.created);
  const accessExpires = parseTimestamp(json.accessExpires);
  return {
    id: json.id,
    state: json.state,
    user: json.user,
    roles: json.roles,
    resources: json.resources,
    requestedText: requestedText(json.roles, json.resources),
    reason: json.reason,
    resolveReason: json.resolveReason,
    reviews: json.reviews,
    suggestedReviewers: json.suggestedReviewers,
    reviewersText: reviewersText(json.reviews, json.suggestedReviewers),
    thresholds: json.thresholds,
    created,
    createdText: dateText(created),
    requestExpiresText: dateText(parseTimestamp(json.requestExpires)),
    accessExpires,
    accessExpiresText: dateText(accessExpires),
    reviewable: json.reviewable,
    assumable: json.assumable,
  };
}

export const reviewDateText = (review: AccessReviewJson) =>
  dateText(parseTimestamp(review.created));
