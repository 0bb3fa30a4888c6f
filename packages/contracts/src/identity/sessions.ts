import { z } from 'zod';
import { webauthnAssertionSchema } from './webauthn.js';

/** Passwords travel base64-encoded (spec §5): base64 of the UTF-8 text. */
export const base64PasswordSchema = z
  .string()
  .max(1024)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');

export const userNameSchema = z
  .string()
  .min(1, 'is required')
  .max(255)
  .regex(/^[A-Za-z0-9@._+-]+$/, 'may hold only letters, digits and @ . _ + -');

/** `POST /v1/webapi/sessions/web`: password plus an authenticator code (or none when off). */
export const createSessionRequestSchema = z.object({
  user: userNameSchema,
  pass: base64PasswordSchema,
  second_factor_token: z.string().max(16).default(''),
});
export type CreateSessionRequest = z.input<typeof createSessionRequestSchema>;

/** The answer of every login and renewal, and the content (base64 JSON) of the bearer meta tag. */
export const sessionResponseSchema = z.object({
  type: z.literal('bearer'),
  token: z.string(),
  /** Seconds the bearer lives. */
  expires_in: z.number(),
  /** RFC 3339: when the web session itself ends. */
  sessionExpires: z.string(),
  /** Milliseconds of inactivity after which the session ends; 0 means never. */
  sessionInactiveTimeout: z.number(),
});
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

/** `POST /v1/webapi/mfa/login/begin`: with a password (second step follows) or passwordless. */
export const mfaLoginBeginRequestSchema = z.union([
  z.object({ passwordless: z.literal(true) }),
  z.object({
    passwordless: z.literal(false).optional(),
    user: userNameSchema,
    pass: base64PasswordSchema,
  }),
]);
export type MfaLoginBeginRequest = z.input<typeof mfaLoginBeginRequestSchema>;

/** `POST /v1/webapi/mfa/login/finishsession`; `user` is empty for passwordless. */
export const mfaLoginFinishRequestSchema = z.object({
  user: z.string().max(255).default(''),
  webauthnAssertionResponse: webauthnAssertionSchema,
});
export type MfaLoginFinishRequest = z.input<typeof mfaLoginFinishRequestSchema>;

/**
 * `POST /v1/webapi/sessions/web/renew` (reference §1.2): `{}`, or exactly one of `requestId`
 * (assume an approved access request), `switchback: true` (drop every assumed request) or
 * `reloadUser: true` (pick up changed traits: Postern reads them live, so it renews plainly).
 */
export const renewSessionRequestSchema = z
  .strictObject({
    requestId: z.string().trim().min(1).max(64).optional(),
    switchback: z.literal(true).optional(),
    reloadUser: z.literal(true).optional(),
  })
  .refine((body) => Object.values(body).filter((v) => v !== undefined).length <= 1, {
    message: 'give at most one of requestId, switchback and reloadUser',
  });
export type RenewSessionRequest = z.input<typeof renewSessionRequestSchema>;

/**
 * Sent by the console's timer calls (status poll, renewal), which are not user activity: the
 * user's last activity as the console recorded it (ms since the epoch), so the server's idle
 * timeout follows key presses and pointer moves rather than background polling.
 */
export const lastActiveHeader = 'X-Postern-Last-Active';
