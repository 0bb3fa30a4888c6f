import { z } from 'zod';
import { base64PasswordSchema, sessionResponseSchema, userNameSchema } from './sessions.js';
import {
  publicKeyOptionsSchema,
  webauthnAssertionSchema,
  webauthnCreationSchema,
} from './webauthn.js';

export const minPasswordLength = 12;

/** Invite and reset links: how long they live unless asked otherwise, and at most. */
export const userTokenDefaultTtlMs = 3600 * 1000;
export const userTokenMaxTtlMs = 48 * 3600 * 1000;

/** `POST users/password/token`: an admin creates an invite or a reset link. */
export const createUserTokenRequestSchema = z.object({
  name: userNameSchema,
  type: z.enum(['invite', 'password']),
  /** Go duration-like text ('1h', '30m') or milliseconds; bounded by userTokenMaxTtlMs. */
  ttl: z.union([z.string(), z.number()]).optional(),
});

/** Spec §3 reset token: the link's id, its user and its expiry. */
export const userTokenSchema = z.object({
  tokenId: z.string(),
  user: z.string(),
  expiry: z.string(),
  /** 'invite' or 'password' (reset). */
  type: z.enum(['invite', 'password']),
});
export type UserToken = z.infer<typeof userTokenSchema>;

/**
 * `GET users/password/token/{tokenId}`: what the invite/reset screen needs. The TOTP secret is
 * rotated on every read, so a leaked link cannot be used to read the seed ahead of its owner.
 */
export const userTokenDetailsSchema = z.object({
  tokenId: z.string(),
  user: z.string(),
  expiry: z.string(),
  type: z.enum(['invite', 'password']),
  /** An SVG data URL of the otpauth:// URI, and the secret itself for manual entry. */
  qrCode: z.string(),
  totpSecret: z.string(),
});
export type UserTokenDetails = z.infer<typeof userTokenDetailsSchema>;

/**
 * `PUT users/password/token`: set the password (null for passwordless) and register the second
 * factor, with a TOTP code or a WebAuthn credential; signs the user in.
 */
export const completeUserTokenRequestSchema = z.object({
  token: z.string().min(1),
  password: base64PasswordSchema.nullable().default(null),
  second_factor_token: z.string().max(16).optional(),
  webauthnCreationResponse: webauthnCreationSchema.optional(),
  deviceName: z.string().min(1).max(64).optional(),
});
export type CompleteUserTokenRequest = z.input<typeof completeUserTokenRequestSchema>;

/**
 * The answer to `PUT users/password/token`: the reference's fields (no recovery codes here), plus
 * the new session, which the cookie also carries; the console navigates in full page anyway.
 */
export const completeUserTokenResponseSchema = sessionResponseSchema.extend({
  recovery: z.null(),
  privateKeyPolicyEnabled: z.boolean(),
});
export type CompleteUserTokenResponse = z.infer<typeof completeUserTokenResponseSchema>;

export const deviceUsageSchema = z.enum(['mfa', 'passwordless']);
export type DeviceUsage = z.infer<typeof deviceUsageSchema>;

/** `POST mfa/token/{tokenId}/registerchallenge`. */
export const registerChallengeRequestSchema = z.object({
  deviceType: z.enum(['totp', 'webauthn']),
  deviceUsage: deviceUsageSchema.default('mfa'),
});
export const registerChallengeSchema = z.object({
  totp: z.object({ qrCode: z.string(), secret: z.string() }).optional(),
  webauthn: z.object({ publicKey: publicKeyOptionsSchema }).optional(),
});
export type RegisterChallenge = z.infer<typeof registerChallengeSchema>;

/** `PUT users/password`: change one's own password, proven with a second factor. */
export const changePasswordRequestSchema = z.object({
  old_password: base64PasswordSchema,
  new_password: base64PasswordSchema,
  second_factor_token: z.string().max(16).optional(),
  webauthnAssertionResponse: webauthnAssertionSchema.optional(),
});

/** `POST mfa/authenticatechallenge/password`. */
export const passwordChallengeRequestSchema = z.object({ pass: base64PasswordSchema });

/** `POST users/privilege/token`: re-authenticate for a short-lived token (a bare JSON string). */
export const privilegeTokenRequestSchema = z.object({
  secondFactorToken: z.string().max(16).optional(),
  webauthnAssertionResponse: webauthnAssertionSchema.optional(),
});

/** `POST mfa/devices`: add a device with a privilege token. */
export const addMfaDeviceRequestSchema = z.object({
  tokenId: z.string().min(1),
  deviceName: z.string().min(1).max(64),
  deviceUsage: deviceUsageSchema.default('mfa'),
  secondFactorToken: z.string().max(16).optional(),
  webauthnRegisterResponse: webauthnCreationSchema.optional(),
});

/** One row of `GET mfa/devices` (spec §3 second-factor device). */
export const mfaDeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['TOTP', 'WebAuthn']),
  usage: deviceUsageSchema,
  addedAt: z.string(),
  lastUsed: z.string(),
});
export type MfaDevice = z.infer<typeof mfaDeviceSchema>;
export const mfaDeviceListSchema = z.array(mfaDeviceSchema);

/** `GET user/status`: the liveness poll. */
export const userStatusSchema = z.object({ message: z.string() });
