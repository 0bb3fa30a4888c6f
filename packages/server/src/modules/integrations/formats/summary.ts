import type { AccessRequestNotice } from '../notice.js';
import type { Outgoing } from './types.js';

type Request = AccessRequestNotice['request'];

/** What was asked for, shortest first: the roles, else the resources as `kind/name`. */
export function requested(request: Request): string {
  if (request.roles.length > 0) return request.roles.join(', ');
  return request.resources.map((r) => `${r.kind}/${r.name}`).join(', ');
}

const decided: Record<Exclude<AccessRequestNotice['event'], 'created'>, string> = {
  approved: 'approved',
  denied: 'denied',
  expired: 'expired',
  deleted: 'deleted',
};

/** One line naming the request: the e-mail subject and the `subject` of TIG10W. */
export function subjectOf(message: Outgoing): string {
  if (message.kind === 'test') return `Postern test message for integration ${message.integration}`;
  const { event, request } = message.notice;
  const verb = event === 'created' ? '' : ` ${decided[event]}`;
  return `Access request from ${request.user}${verb}: ${requested(request)}`;
}

/** The sentence of a chat message, with `strong` around names (the chat's bold). */
export function headline(notice: AccessRequestNotice, strong: (text: string) => string): string {
  const { event, request } = notice;
  const what = strong(requested(request));
  if (event === 'created') return `${strong(request.user)} requests access to ${what}`;
  return `The access request of ${strong(request.user)} for ${what} was ${decided[event]}`;
}

/** The reason to show: the requester's when created, the decision's afterwards. */
export const reasonOf = (notice: AccessRequestNotice) =>
  notice.event === 'created' ? notice.request.reason : notice.request.resolveReason;

/**
 * Text a requester typed, made inert in chat: `@all`, `@channel` and `@here` would page a whole
 * channel, so a zero-width space follows every `@`.
 */
export const noMentions = (text: string) => text.replaceAll('@', '@\u200b');
