import type { AccessRequestJson } from '@postern/contracts';

/**
 * What the access-request service tells the integrations: a request was created, or reached a
 * decision. Integrations turn it into a chat message, an e-mail or a signed webhook call.
 */
export interface AccessRequestNotice {
  event: 'created' | 'approved' | 'denied' | 'expired' | 'deleted';
  request: Pick<
    AccessRequestJson,
    | 'id'
    | 'state'
    | 'user'
    | 'roles'
    | 'resources'
    | 'reason'
    | 'resolveReason'
    | 'created'
    | 'accessExpires'
    | 'suggestedReviewers'
  >;
  /** Who should hear: the suggested reviewers (user names); for a decision, also the requester. */
  recipients: string[];
  /** The console's review screen for this request (absolute https URL). */
  reviewUrl: string;
}

/** Where notices go; the integrations service implements it. Never throws, never waits. */
export interface RequestNotifier {
  notify(notice: AccessRequestNotice): void;
}
