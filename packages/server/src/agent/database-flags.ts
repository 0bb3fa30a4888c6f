import { databaseNameSchema, databaseProtocols, databaseTlsModes } from '@postern/contracts';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error.js';
import type { AgentDatabase } from './app-forwarder.js';

const defaultPorts: Record<string, number> = { postgres: 5432, mysql: 3306 };

/**
 * `--db orders=postgres://localhost:5432?sslrootcert=/etc/ssl/db-ca.crt&sslmode=verify-ca`: the
 * name, the protocol from the scheme (`postgres`, `postgresql` or `mysql`), host and port, and
 * libpq's names for the server certificate's CA file and how it is checked.
 */
export function parseDatabaseFlags(values: readonly string[]): AgentDatabase[] {
  const databases: AgentDatabase[] = [];
  for (const value of values) {
    const equals = value.indexOf('=');
    const name = databaseNameSchema.safeParse(equals > 0 ? value.slice(0, equals).trim() : '');
    if (!name.success) {
      throw new ConfigError(`--db: expected name=uri with a DNS label name, got '${value}'`);
    }
    let uri: URL;
    try {
      uri = new URL(value.slice(equals + 1).trim());
    } catch {
      throw new ConfigError(
        `--db ${name.data}: expected postgres://host:port or mysql://host:port`,
      );
    }
    const scheme = uri.protocol.replace(/:$/, '').replace(/^postgresql$/, 'postgres');
    const protocol = databaseProtocols.find((candidate) => candidate === scheme);
    if (!protocol || !uri.hostname) {
      throw new ConfigError(
        `--db ${name.data}: expected postgres://host:port or mysql://host:port`,
      );
    }
    const mode = uri.searchParams.get('sslmode') ?? 'verify-full';
    const tlsMode = databaseTlsModes.find((candidate) => candidate === mode);
    if (!tlsMode) {
      throw new ConfigError(`--db ${name.data}: sslmode is one of ${databaseTlsModes.join(', ')}`);
    }
    const caFile = uri.searchParams.get('sslrootcert');
    let caCert: string | undefined;
    if (caFile) {
      try {
        caCert = readFileSync(caFile, 'utf8');
      } catch (error) {
        throw new ConfigError(
          `--db ${name.data}: cannot read ${caFile}: ${(error as Error).message}`,
        );
      }
    }
    if (databases.some((db) => db.name === name.data)) {
      throw new ConfigError(`--db: ${name.data} is given twice`);
    }
    databases.push({
      name: name.data,
      protocol,
      host: uri.hostname.replace(/^\[|\]$/g, ''),
      port: Number(uri.port) || defaultPorts[protocol]!,
      caCert,
      tlsMode,
    });
  }
  return databases;
}
