import { z } from 'zod';
import { publicKeyLine } from './login.js';

/**
 * Machine identities (`postern bot start`, docs/bots.md): a bot joins once with a single-use
 * token, then renews its short-lived certificate with the certificate itself. The answers are
 * `ssh/certs` ones (sshCertsResponseSchema), so a bot's directory is a `postern login` home.
 */

/** `POST bots/join`: the token `postern bots add` printed, and the bot's first key. */
export const botJoinRequestSchema = z.object({
  token: z.string().min(1).max(256),
  pub_key: publicKeyLine,
  /** Requested lifetime in milliseconds; capped by the bot's roles' max_session_ttl. */
  ttl: z.number().int().positive().optional(),
});
export type BotJoinRequest = z.infer<typeof botJoinRequestSchema>;

/** `POST bots/renew`, signed with the bot's current certificate: a new key to certify. */
export const botRenewRequestSchema = z.object({
  pub_key: publicKeyLine,
  ttl: z.number().int().positive().optional(),
});
export type BotRenewRequest = z.infer<typeof botRenewRequestSchema>;
