import { z } from 'zod';

/**
 * The error catalogue: every error the API returns carries one of these stable codes, so clients
 * and tests can branch on it without parsing prose. The HTTP status follows from the code.
 */
export const errorCatalogue = {
  bad_parameter: 400,
  access_denied: 403,
  not_authenticated: 401,
  not_found: 404,
  already_exists: 409,
  /** The resource changed since the caller read it (its revision moved): reload and reapply.
   * A conflict like already_exists, told apart by the code. */
  compare_failed: 409,
  /** A body or a file over a configured size limit. */
  too_large: 413,
  limit_exceeded: 429,
  /** The session needs a fresh second factor first (role option require_session_mfa): ask for a
   * challenge (`mfa/session/challenge`) and send its answer with the same call. */
  mfa_required: 403,
  /** The proxy could not reach the server (offline, refused, host key changed). */
  connection_problem: 502,
  /** Storage is locked or unreachable for now (another process holds it, the database is
   * restarting): nothing was changed, and the same call may succeed in a moment. */
  storage_busy: 503,
  /** The audit log cannot take events and its spool is full: new sessions are refused rather
   * than run unaudited until it recovers. */
  audit_unavailable: 503,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof errorCatalogue;

/**
 * The error body. `error.message` is what the console shows (spec §8 reads error.message first,
 * then message); `message` mirrors it for older clients of the reference shape.
 */
export const errorBodySchema = z.object({
  error: z.object({ message: z.string(), code: z.string() }),
  message: z.string(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { message, code }, message };
}

/** A plain success, as the reference shape has it. */
export const okBody = Object.freeze({ message: 'ok' });
