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
  /**
   * A leaf's challenge for a trusted root's user, who has no device on the leaf: a nonce the root
   * (which relays the socket) asks its user about, and answers with `root_assertion`. Never seen
   * by a browser (docs/trusted-clusters.md).
   */
  root_check: z.string().optional(),
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
  /** A trusted root's word, signed, that its user passed the check for a leaf's `root_check`. */
  z.strictObject({ root_assertion: z.string().min(1).max(4096) }),
]);
export type SessionMfaResponse = z.infer<typeof sessionMfaResponseSchema>;

/**
 * What a console call's per-session MFA check is for: `app:<fqdn>`, `desktop:<name>`, or
 * `files:<serverId>` (the console's file transfers to one server).
 */
export const sessionMfaResourceSchema = z
  .string()
  .regex(
    /^(app|desktop|files):[^\s]{1,253}$/,
    'expected app:<host>, desktop:<name> or files:<server id>',
  );

/**
 * `POST mfa/session/challenge` (web session): a challenge for one per-session MFA check of the
 * console's own calls (an application launch, a desktop, file transfers), bound to this web
 * session and `resource`. An application launch and a desktop take the answer as `mfa_response`;
 * file transfers take it through `POST mfa/session/verify` first.
 */
export const sessionMfaChallengeRequestSchema = z.strictObject({
  resource: sessionMfaResourceSchema,
});

/**
 * `POST mfa/session/verify` (web session): the answer to a `files:<serverId>` challenge. A passed
 * check lets this web session's file transfers to that server start for a minute, so the files
 * chosen together need one check.
 */
export const sessionMfaVerifyRequestSchema = z.strictObject({
  resource: sessionMfaResourceSchema.refine(
    (resource) => resource.startsWith('files:'),
    'only files:<server id> is checked on its own; an application or desktop takes the answer with its request',
  ),
  mfa_response: sessionMfaResponseSchema,
});
export type SessionMfaVerifyRequest = z.infer<typeof sessionMfaVerifyRequestSchema>;

/** How long a passed `files:` check lets transfers start. */
export const sessionMfaGrantMs = 60_000;

export const sessionMfaVerifyResponseSchema = z.object({
  /** RFC 3339: until when the check lets transfers start. */
  expires: z.string(),
});
export type SessionMfaVerifyResponse = z.infer<typeof sessionMfaVerifyResponseSchema>;

/**
 * `POST sites/{clusterId}/mfa/required` (the reference's shape): whether a session with the
 * resource named needs a per-session MFA check first. The body names one resource as the
 * reference does (`node: {node_name, login}`, `kube`, `database`, `windows_desktop`, `app`).
 */
export const mfaRequiredRequestSchema = z
  .object({
    node: z.object({ node_name: z.string().max(253), login: z.string().max(64) }).optional(),
    kube: z.object({ cluster_name: z.string().max(253) }).optional(),
    database: z
      .object({ service_name: z.string().max(253) })
      .passthrough()
      .optional(),
    windows_desktop: z
      .object({ desktop_name: z.string().max(253) })
      .passthrough()
      .optional(),
    app: z.object({}).passthrough().optional(),
  })
  .refine(
    (body) => Object.values(body).filter(Boolean).length === 1,
    'name one resource: node, kube, database, windows_desktop or app',
  );
export type MfaRequiredRequest = z.infer<typeof mfaRequiredRequestSchema>;
export const mfaRequiredResponseSchema = z.object({ required: z.boolean() });
export type MfaRequiredResponse = z.infer<typeof mfaRequiredResponseSchema>;
