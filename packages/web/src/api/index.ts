import { createApiClient } from './client';
import { createCsrfReader, readStoredToken } from './credentials';

export { ApiError } from './apiError';
export type { ApiClient, RequestOptions } from './client';
export { decode } from './decode';

/** The client the console uses. Reads `fetch` at call time so tests can stub the global. */
export const api = createApiClient({
  fetch: (input, init) => window.fetch(input, init),
  csrfToken: createCsrfReader(),
  accessToken: () => readStoredToken()?.accessToken,
});
