import { connect, type Socket } from 'node:net';
import { createTransport } from 'nodemailer';
import { DeliveryError } from '../failure.js';
import { isLoopbackAddress } from '../url-guard.js';
import { reasonOf, requested, subjectOf } from './summary.js';
import type { OpenedIntegration, Outgoing, SendContext, Sender } from './types.js';

export interface EmailSettings {
  host: string;
  port: number;
  security: 'starttls' | 'tls' | 'none';
  username: string;
  from: string;
  fallbackRecipients: string[];
}

export interface Mail {
  to: string[];
  subject: string;
  text: string;
}

/** The e-mail for a message: to the recipients' addresses, else the fallback recipients. */
export function composeMail(
  message: Outgoing,
  settings: EmailSettings,
  emailOf: SendContext['emailOf'],
): Mail {
  const subject = subjectOf(message);
  if (message.kind === 'test') {
    const to = unique([emailOf(message.actor)]);
    return {
      to: to.length > 0 ? to : settings.fallbackRecipients,
      subject,
      text: `This is a test message from Postern, sent by ${message.actor} through the integration ${message.integration}.\n\n${message.consoleUrl}\n`,
    };
  }
  const { notice } = message;
  const to = unique(notice.recipients.map(emailOf));
  const lines = [
    notice.event === 'created'
      ? `${notice.request.user} requests access to ${requested(notice.request)}.`
      : `The access request of ${notice.request.user} for ${requested(notice.request)} was ${notice.event}.`,
  ];
  const reason = reasonOf(notice);
  if (reason) lines.push('', `Reason: ${reason}`);
  lines.push('', `Review the request: ${notice.reviewUrl}`);
  return {
    to: to.length > 0 ? to : settings.fallbackRecipients,
    subject,
    text: `${lines.join('\n')}\n`,
  };
}

const unique = (addresses: (string | undefined)[]) => [
  ...new Set(addresses.filter((a): a is string => !!a)),
];

/**
 * Sends over SMTP with nodemailer, on a socket we open ourselves (`getSocket`): through the
 * guard's lookup, so the address is vetted at connect time, and ours to destroy when the
 * attempt's time is up. nodemailer then does the TLS (`tls`: at once; `starttls`: required,
 * never a silent fall back to plain text), with the configured host as the name to verify.
 */
export const sendEmail: Sender = async (integration, message, ctx) => {
  const settings = integration.settings as unknown as EmailSettings;
  const mail = composeMail(message, settings, ctx.emailOf);
  if (mail.to.length === 0) {
    throw new DeliveryError('no recipient has an e-mail address and no fallback is set', true);
  }
  await deliverMail(integration, settings, mail, ctx);
};

async function deliverMail(
  integration: OpenedIntegration,
  settings: EmailSettings,
  mail: Mail,
  ctx: SendContext,
): Promise<void> {
  const { host, port, security, username, from } = settings;
  let socket: Socket | undefined;
  const transport = createTransport({
    host,
    port,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    ...(username ? { auth: { user: username, pass: integration.secrets.password ?? '' } } : {}),
    getSocket: (_options, callback) => {
      try {
        ctx.guard.checkLiteral(host, port);
      } catch (error) {
        callback(error as Error);
        return;
      }
      const opened = connect({ host, port, lookup: ctx.guard.lookupFor(port) });
      socket = opened;
      const onError = (error: Error) => callback(error);
      opened.once('error', onError);
      opened.once('connect', () => {
        opened.off('error', onError);
        // Plain text is for a relay on this host only: a password must not cross a network bare.
        if (security === 'none' && !isLoopbackAddress(opened.remoteAddress ?? '')) {
          opened.destroy();
          callback(new DeliveryError('security none is only for an SMTP server on loopback', true));
          return;
        }
        callback(null, { connection: opened });
      });
    },
  });
  const abort = () => socket?.destroy();
  ctx.signal.addEventListener('abort', abort, { once: true });
  try {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    ctx.signal.removeEventListener('abort', abort);
    transport.close();
    socket?.destroy();
  }
}
