import type { CreateAccessRequest, ResourceId, UserContext } from '@postern/contracts';
import { parseDurationMs } from '../locks/newLockForm';

/** What the New Access Request form holds, as typed. */
export interface NewRequestForm {
  roles: string[];
  reason: string;
  /** User names, separated by commas or spaces. */
  reviewers: string;
  /** A duration ('4h', '1h30m'); empty for the roles' own maximum. */
  maxDuration: string;
}

export type NewRequestErrors = Partial<Record<keyof NewRequestForm, string>>;
export type AccessStrategy = UserContext['accessStrategy'];

export const durationSuggestions = ['1h', '4h', '8h', '24h'] as const;
export const maxReasonLength = 4096;

export const emptyNewRequestForm = (suggestedReviewers: string[] = []): NewRequestForm => ({
  roles: [],
  reason: '',
  reviewers: suggestedReviewers.join(', '),
  maxDuration: '',
});

/** A reason is required when the user's roles say `request_access: reason` or `always`. */
export const reasonRequired = (strategy: AccessStrategy) =>
  strategy.type === 'reason' || strategy.type === 'always';

export const splitNames = (text: string) => [
  ...new Set(
    text
      .split(/[\s,]+/)
      .map((n) => n.trim())
      .filter(Boolean),
  ),
];

/** Checks the form and builds the `POST accessrequests` body (the contract's own limits). */
export function validateNewRequest(
  form: NewRequestForm,
  resources: readonly ResourceId[],
  strategy: AccessStrategy,
): { errors: NewRequestErrors; body?: CreateAccessRequest } {
  const errors: NewRequestErrors = {};
  const reason = form.reason.trim();
  const reviewers = splitNames(form.reviewers);
  const maxDuration = form.maxDuration.trim();

  if (form.roles.length === 0 && resources.length === 0) {
    errors.roles = 'Choose at least one role, or add resources to the request';
  }
  if (reasonRequired(strategy) && reason === '') errors.reason = 'Give a reason for this request';
  else if (reason.length > maxReasonLength) errors.reason = `At most ${maxReasonLength} characters`;
  if (reviewers.length > 32) errors.reviewers = 'At most 32 reviewers';
  else if (reviewers.some((r) => r.length > 256))
    errors.reviewers = 'A name is at most 256 characters';
  if (maxDuration !== '') {
    const ms = parseDurationMs(maxDuration);
    if (ms === undefined || ms <= 0) errors.maxDuration = 'Use a duration such as 1h, 4h or 1h30m';
  }

  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    body: {
      roles: form.roles,
      resources: resources.map(({ kind, clusterName, name }) => ({ kind, clusterName, name })),
      reason,
      suggestedReviewers: reviewers,
      ...(maxDuration ? { maxDuration } : {}),
    },
  };
}
