import { z } from 'zod';
import { totpCodeSchema, webauthnAssertionSchema } from '../identity/webauthn.js';

/**
 * Signing in from the command line (`postern login`): a user certificate for an Ed25519 key the
 * CLI made, by password and second factor (`ssh/certs`) or by a browser's approval (headless).
 * docs/cli-login.md describes the flow and the files the CLI writes.
 */

/** An OpenSSH `ssh-ed25519 AAAA… [comment]` line; the server parses it fully. */
export const publicKeyLine = z
  .string()
  .max(1024)
  .regex(/^ssh-ed25519 [A-Za-z0-9+/=]+( [^\n]*)?$/, 'must be an OpenSSH ssh-ed25519 public key');

const userName = z.string().min(1).max(255);

/** `POST ssh/certs`. `password` is base64 of the UTF-8 text, as `sessions/web` takes `pass`. */
export const sshCertsRequestSchema = z.object({
  user: userName,
  password: z.string().max(4096),
  otp_token: z.string().max(16).optional(),
  /** An answer to a `mfa/login/begin` challenge, for users with a hardware key. */
  webauthn_challenge_response: webauthnAssertionSchema.optional(),
  pub_key: publicKeyLine,
  /** Requested lifetime in milliseconds; capped by the roles' max_session_ttl. */
  ttl: z.number().int().positive().optional(),
});
export type SshCertsRequest = z.infer<typeof sshCertsRequestSchema>;

/** A user certificate and what the CLI needs to use it. */
export const sshCertsResponseSchema = z.object({
  /** `ssh-ed25519-cert-v01@openssh.com AAAA…` */
  cert: z.string(),
  ttl_ms: z.number(),
  /** known_hosts lines: `@cert-authority * ssh-ed25519 AAAA… postern-host-ca`. */
  host_signers: z.array(z.string()),
  cluster_name: z.string(),
  /** The SSH proxy listener, `host:port` (ping's `proxy.ssh.public_addr`). */
  ssh_proxy_addr: z.string(),
});
export type SshCertsResponse = z.infer<typeof sshCertsResponseSchema>;

/** `POST headless/login`: a CLI without a browser asks for a signed-in browser's approval. */
export const headlessLoginRequestSchema = z.object({
  user: userName,
  pub_key: publicKeyLine,
  /** As in ssh/certs. */
  ttl: z.number().int().positive().optional(),
});
export type HeadlessLoginRequest = z.infer<typeof headlessLoginRequestSchema>;

export const headlessLoginResponseSchema = z.object({
  request_id: z.string(),
  /** `<public web url>/web/headless/<request_id>`: the page the user approves it on. */
  url: z.string(),
  /** RFC 3339: when the request can no longer be approved. */
  expires: z.string(),
});
export type HeadlessLoginResponse = z.infer<typeof headlessLoginResponseSchema>;

export const headlessStates = ['pending', 'approved', 'denied'] as const;
export type HeadlessState = (typeof headlessStates)[number];

/** `GET headless/{requestId}` (the approving user's view). */
export const headlessRequestViewSchema = z.object({
  client_ip_address: z.string(),
  user: z.string(),
  state: z.enum(headlessStates),
  created: z.string(),
  expires: z.string(),
});
export type HeadlessRequestView = z.infer<typeof headlessRequestViewSchema>;

/** Spec §4: the two answers a headless request gets. */
export const headlessActions = ['accept', 'denied'] as const;
export type HeadlessAction = (typeof headlessActions)[number];

/** `PUT headless/{requestId}`: accepting needs a key's answer to `headless/{id}/challenge`. */
export const headlessActionRequestSchema = z.object({
  action: z.enum(headlessActions),
  webauthnAssertionResponse: webauthnAssertionSchema.optional(),
});
export type HeadlessActionRequest = z.infer<typeof headlessActionRequestSchema>;

/** `GET headless/{requestId}/wait` (the CLI's poll): the certificate once approved. */
export const headlessWaitResponseSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('pending') }),
  z.object({ state: z.literal('denied') }),
  z.object({ state: z.literal('approved'), certificate: sshCertsResponseSchema }),
]);
export type HeadlessWaitResponse = z.infer<typeof headlessWaitResponseSchema>;

/**
 * `POST mfa/session/certs`, signed with the login's certificate: per-session MFA from the command
 * line (role option require_session_mfa, docs/cli-login.md). Without a code it says whether the
 * sessions need one; with an authenticator code it returns a certificate for the same key that
 * opens only these sessions (ssh to a node as a login, a database or app tunnel), and only for
 * a minute.
 */
const resourceName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/, 'not a resource name');
export const sessionMfaTargetSchema = z.union([
  z.strictObject({
    /** As `ssh` names it: a node's name, hostname or either with `.<cluster>`. */
    node: z.string().min(1).max(253),
    login: z.string().min(1).max(64),
  }),
  /**
   * A database or app tunnel by name; with `cluster`, a trusted leaf's, whose roles the root asks
   * about (`postern proxy db|app --cluster`).
   */
  z.strictObject({
    kind: z.enum(['db', 'app']),
    name: resourceName,
    cluster: resourceName.optional(),
  }),
  /**
   * `join` a live session by its id (`postern join`); with `cluster`, a trusted leaf's session,
   * whose roles the root asks about (`postern join --cluster`).
   */
  z.strictObject({ kind: z.literal('join'), name: resourceName, cluster: resourceName.optional() }),
]);
export type SessionMfaTarget = z.infer<typeof sessionMfaTargetSchema>;

export const sessionMfaCertsRequestSchema = z.strictObject({
  targets: z.array(sessionMfaTargetSchema).min(1).max(64),
  pub_key: publicKeyLine,
  totp_code: totpCodeSchema.optional(),
});
export type SessionMfaCertsRequest = z.infer<typeof sessionMfaCertsRequestSchema>;

export const sessionMfaCertsResponseSchema = z.object({
  required: z.boolean(),
  /** With a code: the one-minute certificate for the targets. */
  cert: z.string().optional(),
});
export type SessionMfaCertsResponse = z.infer<typeof sessionMfaCertsResponseSchema>;
