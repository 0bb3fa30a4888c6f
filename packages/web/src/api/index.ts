import { createApiClient, credentialHeaders, type ApiClientDeps } from './client';
import { createCsrfReader, readStoredToken } from './credentials';

export { ApiError, errorMessageOf, isLockedError, lockReasonOf } from './apiError';
export type { ApiClient, RequestOptions } from './client';
export { decode } from './decode';

type UnauthorizedHandler = NonNullable<ApiClientDeps['onUnauthorized']>;
let unauthorizedHandler: UnauthorizedHandler | undefined;

/**
 * Who hears about a 401 to an authenticated call: the running session (src/app/session) while
 * the user is signed in, nobody otherwise. Returns a function that removes the handler.
 */
export function setUnauthorizedHandler(handler: UnauthorizedHandler): () => void {
  unauthorizedHandler = handler;
  return () => {
    if (unauthorizedHandler === handler) unauthorizedHandler = undefined;
  };
}

type ErrorListener = NonNullable<ApiClientDeps['onError']>;
const errorListeners = new Set<ErrorListener>();

/**
 * Hears every error answer of the console's client, whichever page made the call. Returns a
 * function that removes the listener.
 */
export function subscribeApiErrors(listener: ErrorListener): () => void {
  errorListeners.add(listener);
  return () => {
    errorListeners.delete(listener);
  };
}

const csrfToken = createCsrfReader();

/**
 * The credentials `api` sends, for the few requests it cannot make itself: file transfers, which
 * need upload progress (XMLHttpRequest) or a streamed body.
 */
export const apiCredentials = (): Record<string, string> =>
  credentialHeaders(csrfToken(), readStoredToken()?.accessToken);

/** The client the console uses. Reads `fetch` at call time so tests can stub the global. */
export const api = createApiClient({
  fetch: (input, init) => window.fetch(input, init),
  csrfToken,
  accessToken: () => readStoredToken()?.accessToken,
  onUnauthorized: (error, usedToken) => unauthorizedHandler?.(error, usedToken),
  onError: (error, options) => {
    for (const listener of errorListeners) listener(error, options);
  },
});
