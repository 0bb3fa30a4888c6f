import { createHmac } from 'node:crypto';
import { DeliveryError } from '../failure.js';
import { postJson } from './http-post.js';
import type { Outgoing, Sender } from './types.js';

export const signatureHeader = 'x-postern-signature';
export const timestampHeader = 'x-postern-timestamp';

/** `sha256=<hex>`: the HMAC-SHA256 of the exact body bytes under the signing secret. */
export const signBody = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * The generic webhook's body: the notice as it is, for receivers that do their own routing.
 * `timestamp` repeats the header inside the signed bytes, so a receiver can refuse replays.
 */
export function webhookBody(message: Outgoing, timestamp: number): string {
  if (message.kind === 'test') {
    return JSON.stringify({
      event: 'test',
      request: null,
      reviewUrl: message.consoleUrl,
      recipients: [],
      timestamp,
    });
  }
  const { event, request, reviewUrl, recipients } = message.notice;
  return JSON.stringify({ event, request, reviewUrl, recipients, timestamp });
}

export const sendWebhook: Sender = async (integration, message, ctx) => {
  const { url, signingSecret } = integration.secrets;
  const target = url ?? (integration.settings.url as string | undefined);
  if (!target) throw new DeliveryError('no URL is set', true);
  if (!signingSecret) throw new DeliveryError('no signing secret is set', true);
  const timestamp = Math.floor(ctx.now() / 1000);
  const body = webhookBody(message, timestamp);
  await postJson({
    url: target,
    body,
    guard: ctx.guard,
    signal: ctx.signal,
    headers: {
      [signatureHeader]: signBody(signingSecret, body),
      [timestampHeader]: String(timestamp),
    },
  });
};
