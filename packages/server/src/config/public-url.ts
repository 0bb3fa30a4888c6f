import { formatHostPort } from './address.js';
import type { Config } from './config.js';

/** Where people reach this proxy: `https://public_addr` (http with --insecure-no-tls). */
export function publicBaseUrl(config: Config): string {
  const scheme = config.insecureNoTls ? 'http' : 'https';
  return `${scheme}://${formatHostPort(config.publicAddr)}`;
}

/** Where SSH clients reach the proxy's SSH listener: the public host with the SSH port. */
export function sshProxyPublicAddr(config: Config): string {
  return formatHostPort({ host: config.publicAddr.host, port: config.sshAddr.port });
}
