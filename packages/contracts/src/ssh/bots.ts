import { z } from 'zod';
import { publicKeyLine } from './login.js';

/**
 * Machine identities (`postern bot start`, docs/bots.md): a bot joins once with a single-use
 * token, then renews its short-lived certificate with the certificate itself. The answers are
 * `ssh/certs` ones (sshCertsResponseSchema), so a bot's directory is a `postern login` home.
 */

/**
 * `POST bots/join`: the bot's first key, and either the single-use token `postern bots add`
 * printed, or a CI job's OpenID Connect ID token with the bot's name (the bot's OIDC rule).
 */
export const botJoinRequestSchema = z
  .object({
    token: z.string().min(1).max(256).optional(),
    id_token: z
      .string()
      .min(1)
      .max(16 * 1024)
      .optional(),
    bot_name: z.string().min(1).max(64).optional(),
    pub_key: publicKeyLine,
    /** Requested lifetime in milliseconds; capped by the bot's roles' max_session_ttl. */
    ttl: z.number().int().positive().optional(),
  })
  .refine((body) => (body.token === undefined) !== (body.id_token === undefined), {
    message: 'give either token or id_token',
  })
  .refine((body) => body.id_token === undefined || body.bot_name !== undefined, {
    message: 'an id_token needs the bot_name it joins as',
    path: ['bot_name'],
  });
export type BotJoinRequest = z.infer<typeof botJoinRequestSchema>;

/** `POST bots/renew`, signed with the bot's current certificate: a new key to certify. */
export const botRenewRequestSchema = z.object({
  pub_key: publicKeyLine,
  ttl: z.number().int().positive().optional(),
});
export type BotRenewRequest = z.infer<typeof botRenewRequestSchema>;
