/**
 * The error every failed API call throws (spec §8). `response` and `status` let callers branch
 * on the HTTP outcome (the session checker treats 403 specially); `code` is the stable error code
 * of our error body (`{error: {message, code}, message}`), when the server sent one.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly response: Response;
  readonly status: number;
  readonly code: string | undefined;

  constructor(message: string, response: Response, code?: string) {
    super(message || 'Unknown error');
    this.response = response;
    this.status = response.status;
    this.code = code;
  }
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Spec §8: `error.message`, else `message`, else the body's `responseText`; with none of them the
 * error reads 'Unknown error' (the constructor's default), never the HTTP status text.
 */
export function errorMessageOf(json: unknown): string {
  return (
    nonEmptyString(field(field(json, 'error'), 'message')) ??
    nonEmptyString(field(json, 'message')) ??
    nonEmptyString(field(json, 'responseText')) ??
    ''
  );
}

export function errorCodeOf(json: unknown): string | undefined {
  return nonEmptyString(field(field(json, 'error'), 'code'));
}

const lockedPrefix = 'locked:';

/** A lock on the user or one of their roles: the server answers 403 `locked: <message>`. */
export const isLockedError = (err: unknown): err is ApiError =>
  err instanceof ApiError && err.status === 403 && err.message.startsWith(lockedPrefix);

/** The lock's own message, without the server's `locked:` prefix; undefined for other errors. */
export function lockReasonOf(err: unknown): string | undefined {
  return isLockedError(err) ? err.message.slice(lockedPrefix.length).trim() : undefined;
}
