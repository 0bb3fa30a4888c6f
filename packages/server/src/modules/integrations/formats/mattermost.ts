import { DeliveryError } from '../failure.js';
import { postJson } from './http-post.js';
import { headline, noMentions, reasonOf } from './summary.js';
import type { Outgoing, Sender } from './types.js';

/** Backslash before every Markdown sign, so typed text cannot make a link or a heading. */
const escape = (text: string) => text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');

/** A Mattermost incoming-webhook message: Markdown with a `[Review request](url)` link. */
export function mattermostText(message: Outgoing): string {
  if (message.kind === 'test') {
    return `Postern test message: integration **${escape(message.integration)}** can post here (sent by ${escape(message.actor)}).`;
  }
  const { notice } = message;
  const lines = [headline(notice, (text) => `**${escape(text)}**`)];
  const reason = reasonOf(notice);
  if (reason) lines.push(`Reason: ${escape(noMentions(reason))}`);
  lines.push(`[Review request](${notice.reviewUrl})`);
  if (notice.recipients.length > 0) {
    lines.push(`Reviewers: ${notice.recipients.map((name) => `@${name}`).join(' ')}`);
  }
  return lines.join('\n');
}

export const mattermostPayload = (message: Outgoing, channel: string | undefined) => ({
  text: mattermostText(message),
  ...(channel ? { channel } : {}),
});

export const sendMattermost: Sender = async (integration, message, ctx) => {
  const url = integration.secrets.url;
  if (!url) throw new DeliveryError('no webhook URL is set', true);
  const channel = integration.settings.channel as string | undefined;
  const body = JSON.stringify(mattermostPayload(message, channel));
  await postJson({ url, body, guard: ctx.guard, signal: ctx.signal });
};
