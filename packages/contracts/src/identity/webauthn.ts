import { z } from 'zod';

/**
 * WebAuthn JSON as browsers serialise credentials (`PublicKeyCredential.toJSON()`, the shape
 * @simplewebauthn/browser returns): every buffer is base64url. The server verifies the content;
 * here we only check the envelope, so a malformed body fails early with a clear message.
 */
const base64url = z.string().regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

export const webauthnAssertionSchema = z
  .object({
    id: base64url,
    rawId: base64url,
    type: z.literal('public-key'),
    response: z
      .object({
        authenticatorData: base64url,
        clientDataJSON: base64url,
        signature: base64url,
        userHandle: base64url.optional(),
      })
      .passthrough(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().optional(),
  })
  .passthrough();
export type WebauthnAssertion = z.infer<typeof webauthnAssertionSchema>;

export const webauthnCreationSchema = z
  .object({
    id: base64url,
    rawId: base64url,
    type: z.literal('public-key'),
    response: z
      .object({
        attestationObject: base64url,
        clientDataJSON: base64url,
        transports: z.array(z.string()).optional(),
      })
      .passthrough(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().optional(),
  })
  .passthrough();
export type WebauthnCreation = z.infer<typeof webauthnCreationSchema>;

/**
 * Options for `navigator.credentials.get/create` as JSON (base64url buffers), passed to
 * @simplewebauthn/browser's startAuthentication/startRegistration as `optionsJSON`.
 */
export const publicKeyOptionsSchema = z.record(z.string(), z.unknown());
export type PublicKeyOptionsJson = z.infer<typeof publicKeyOptionsSchema>;

/** What the server asks for as a second factor: a WebAuthn assertion, a TOTP code, or either. */
export const mfaChallengeSchema = z.object({
  webauthn_challenge: z.object({ publicKey: publicKeyOptionsSchema }).optional(),
  totp_challenge: z.boolean(),
});
export type MfaChallenge = z.infer<typeof mfaChallengeSchema>;

/** An authenticator app's code, as typed. */
export const totpCodeSchema = z.string().regex(/^\d{6,8}$/, 'expected a 6 to 8 digit code');

/**
 * The answer to a per-session MFA challenge (role option `require_session_mfa`), sent back on the
 * terminal's `n` frame: a key's assertion (the reference's `webauthn_response`) or, when the
 * challenge allowed one, an authenticator code.
 */
export const sessionMfaResponseSchema = z.union([
  z.strictObject({ webauthn_response: webauthnAssertionSchema }),
  z.strictObject({ totp_code: totpCodeSchema }),
]);
export type SessionMfaResponse = z.infer<typeof sessionMfaResponseSchema>;

/**
 * `POST mfa/session/challenge` (web session): a challenge for one per-session MFA check of the
 * console's own calls (an application launch, a desktop), bound to this web session and `resource`
 * (`app:<fqdn>`, `desktop:<name>`); the call it is for takes the answer as `mfa_response`.
 */
export const sessionMfaChallengeRequestSchema = z.strictObject({
  resource: z
    .string()
    .regex(/^(app|desktop):[^\s]{1,253}$/, 'expected app:<host> or desktop:<name>'),
});
