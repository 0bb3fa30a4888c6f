import { formatHostPort } from './address.js';
import type { Config } from './config.js';

/** Where people reach this proxy: `https://public_addr` (http with --insecure-no-tls). */
export function publicBaseUrl(config: Config): string {
  const scheme = config.insecureNoTls ? 'http' : 'https';
  return `${scheme}://${formatHostPort(config.publicAddr)}`;
}
