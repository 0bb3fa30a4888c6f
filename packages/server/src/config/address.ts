import { ConfigError } from './config-error.js';

/** A listen or public address, `HOST:PORT`; IPv6 hosts are written in brackets. */
export interface HostPort {
  host: string;
  port: number;
}

export function parseHostPort(value: string, what: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    throw new ConfigError(`${what} must be HOST:PORT (for example 0.0.0.0:3080), got '${value}'`);
  }
  return { host: match[1] ?? match[2] ?? '', port };
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
