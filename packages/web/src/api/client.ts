import { ApiError, errorCodeOf, errorMessageOf } from './apiError';

/**
 * The console's only HTTP client (spec §7, §8). Every call is same-origin, uncached, sends the
 * JSON headers, the CSRF token and the bearer token, and turns failures into the errors the spec
 * names. Responses come back as `unknown`: callers decode them with a contracts schema.
 */
export interface ApiClientDeps {
  fetch: typeof fetch;
  csrfToken: () => string;
  accessToken: () => string | undefined;
  /**
   * Told about every 401 answer to a call that carried a bearer token: the one place where an
   * expired or revoked session is noticed, whichever page made the call (reference pain #50431).
   * It may answer with a newer token (the session was just renewed, here or in another tab, so
   * the cookie already names the new session): the call is then sent once more with it.
   */
  onUnauthorized?: (
    error: ApiError,
    usedToken: string,
  ) => Promise<string | undefined> | string | undefined;
  /**
   * Told about every error answer the client finally throws (after any retry), so one place can
   * react to answers that matter whichever page got them (a lock: `403 locked: …`).
   */
  onError?: (error: ApiError, options: RequestOptions) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** The session's own calls (renew, status, logout): a 401 is theirs to handle. */
  skipSessionCheck?: boolean;
  /** Headers beyond the standard ones, e.g. the session calls' last-activity report. */
  headers?: Record<string, string>;
  /** Sent even if the page goes away meanwhile (fetch's keepalive): a call made as it closes. */
  keepalive?: boolean;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** What proves a call comes from the signed-in console (spec §7): the CSRF token and the bearer. */
export function credentialHeaders(csrfToken: string, token: string | undefined) {
  return {
    'X-CSRF-Token': csrfToken,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
}

export function createApiClient(deps: ApiClientDeps) {
  function headers(
    json: boolean,
    token: string | undefined,
    extra = {},
    accept = 'application/json',
  ): Headers {
    const result = new Headers({
      ...extra,
      Accept: accept,
      ...credentialHeaders(deps.csrfToken(), token),
    });
    // Without an explicit Content-Type the browser writes the multipart boundary for FormData.
    if (json) result.set('Content-Type', 'application/json; charset=utf-8');
    return result;
  }

  async function send(
    method: string,
    url: string,
    body: BodyInit | undefined,
    json: boolean,
    options: RequestOptions = {},
    retryToken?: string,
    read: BodyReader = readJson,
  ): Promise<unknown> {
    const token = retryToken ?? deps.accessToken();
    let response: Response;
    try {
      response = await deps.fetch(url, {
        method,
        body,
        headers: headers(json, token, options.headers, read.accept),
        mode: 'same-origin',
        credentials: 'same-origin',
        cache: 'no-store',
        signal: options.signal,
        ...(options.keepalive ? { keepalive: true } : {}),
      });
    } catch (err) {
      // A cancelled request is not a network failure: react-query relies on the AbortError.
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new Error('Network request failed');
    }
    try {
      return await readResponse(response, url, read);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (token && err.status === 401 && !options.skipSessionCheck && deps.onUnauthorized) {
        const fresh = await deps.onUnauthorized(err, token);
        // A 401 comes from the access check, before the route runs: sending again is safe.
        if (retryToken === undefined && fresh && fresh !== token) {
          return send(method, url, body, json, options, fresh, read);
        }
      }
      deps.onError?.(err, options);
      throw err;
    }
  }

  // Every call says its body is JSON (spec §7), so a mutation without one sends an empty object:
  // a JSON Content-Type with an empty body is a 400 for most servers (ours included).
  const jsonBody = (body: unknown) => JSON.stringify(body ?? {});

  return {
    get: (url: string, options?: RequestOptions) => send('GET', url, undefined, true, options),
    /** A file (a recording's `.cast`): the body as a Blob, with the same headers and errors. */
    getBlob: async (url: string, options?: RequestOptions) =>
      (await send('GET', url, undefined, true, options, undefined, readBlob)) as Blob,
    post: (url: string, body?: unknown, options?: RequestOptions) =>
      send('POST', url, jsonBody(body), true, options),
    put: (url: string, body?: unknown, options?: RequestOptions) =>
      send('PUT', url, jsonBody(body), true, options),
    delete: (url: string, body?: unknown, options?: RequestOptions) =>
      send('DELETE', url, jsonBody(body), true, options),
    /** File uploads (spec §5): the body must be a FormData. */
    postFormData: async (url: string, data: unknown, options?: RequestOptions) => {
      if (!(data instanceof FormData)) throw new Error('data for body is not a type of FormData');
      return send('POST', url, data, false, options);
    },
  };
}

interface BodyReader {
  accept: string;
  (response: Response): Promise<unknown>;
}

// No content has no JSON to parse; anything else must be JSON, and a parse failure surfaces
// with the parser's own message (spec §8).
const readJson: BodyReader = Object.assign(
  (response: Response) => (response.status === 204 ? Promise.resolve(undefined) : response.json()),
  { accept: 'application/json' },
);

// Errors still come as JSON; the Accept names the file too, so the server may send it.
const readBlob: BodyReader = Object.assign((response: Response) => response.blob(), {
  accept: 'application/octet-stream, application/json',
});

async function readResponse(response: Response, url: string, read: BodyReader): Promise<unknown> {
  if (response.ok) return read(response);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new ApiError(`${response.status} - ${response.url || url}`, response);
  }
  throw new ApiError(errorMessageOf(json), response, errorCodeOf(json));
}
