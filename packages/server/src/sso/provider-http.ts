/**
 * A provider's failure (an HTTP status, an error answer, a refused token), kept for the log.
 * The person is told only that the sign-in with the provider failed: no internals leak.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
}

/** https, or http to a loopback address: nothing else carries codes, tokens and secrets. */
export function assertSafeUrl(value: string): void {
  const url = new URL(value);
  const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ProviderError(`${value} is not https`);
  }
}
