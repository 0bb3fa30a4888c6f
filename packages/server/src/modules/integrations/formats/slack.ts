import { DeliveryError } from '../failure.js';
import { postJson } from './http-post.js';
import { headline, noMentions, reasonOf } from './summary.js';
import type { Outgoing, Sender } from './types.js';

/** Slack's mrkdwn escapes: only these three; the rest of a reason stays as typed. */
const escape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * A Slack incoming-webhook message: mrkdwn text with the requester, what they asked for, the
 * reason, a link to review and `@name` of each recipient. Typed text is escaped so a reason
 * cannot forge a link (`<https://evil|Review request>`) or page the channel.
 */
export function slackText(message: Outgoing): string {
  if (message.kind === 'test') {
    return `Postern test message: integration *${escape(message.integration)}* can post here (sent by ${escape(message.actor)}).`;
  }
  const { notice } = message;
  const lines = [escape(headline(notice, (text) => `*${text}*`))];
  const reason = reasonOf(notice);
  if (reason) lines.push(`Reason: ${escape(noMentions(reason))}`);
  lines.push(`<${notice.reviewUrl}|Review request>`);
  if (notice.recipients.length > 0) {
    lines.push(`Reviewers: ${notice.recipients.map((name) => `@${escape(name)}`).join(' ')}`);
  }
  return lines.join('\n');
}

export const slackPayload = (message: Outgoing, channel: string | undefined) => ({
  text: slackText(message),
  ...(channel ? { channel } : {}),
});

export const sendSlack: Sender = async (integration, message, ctx) => {
  const url = integration.secrets.url;
  if (!url) throw new DeliveryError('no webhook URL is set', true);
  const channel = integration.settings.channel as string | undefined;
  const body = JSON.stringify(slackPayload(message, channel));
  await postJson({ url, body, guard: ctx.guard, signal: ctx.signal });
};
