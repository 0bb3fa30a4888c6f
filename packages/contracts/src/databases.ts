import { z } from 'zod';
import { nodeLabelSchema } from './nodes.js';
import { resourceListQuerySchema, resourceListResponseSchema } from './resource-list.js';

/**
 * Databases (spec §3 Database, §7 databases, §9 type titles; reference §1.5). The list JSON keeps
 * the reference's field names (`desc`, `type`, `database_names`, `database_users`) so its
 * clients keep working.
 */

export const databaseProtocols = ['postgres', 'mysql'] as const;
export type DatabaseProtocol = (typeof databaseProtocols)[number];

/** Spec §9: how the console titles a database's protocol. */
export const databaseTypeTitles: Record<string, string> = {
  postgres: 'PostgreSQL',
  mysql: 'MySQL/MariaDB',
  mongodb: 'MongoDB',
  sqlserver: 'SQL Server',
  redis: 'Redis',
  oracle: 'Oracle',
  cockroachdb: 'CockroachDB',
  cassandra: 'Cassandra',
  elasticsearch: 'Elasticsearch',
};

/**
 * How the proxy checks the database's server certificate: `verify-full` (the CA and the host
 * name), `verify-ca` (the CA only) or `insecure` (no check; test set-ups only).
 */
export const databaseTlsModes = ['verify-full', 'verify-ca', 'insecure'] as const;
export type DatabaseTlsMode = (typeof databaseTlsModes)[number];

export const databaseNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const databaseNameSchema = z
  .string()
  .regex(
    databaseNamePattern,
    'database names are DNS labels: a-z, 0-9 and inner dashes, 1-63 characters',
  );

/** `host:port` (IPv6 in brackets): where the proxy, or the agent, reaches the database. */
export const databaseUriSchema = z
  .string()
  .max(300)
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'uri is host:port');

/** The resource (`postern create -f db.yaml`, the config file, agents). */
export const databaseResourceSchema = z.object({
  kind: z.literal('db'),
  version: z.literal('v3').default('v3'),
  metadata: z.object({
    name: databaseNameSchema,
    description: z.string().max(1024).default(''),
    labels: z.record(z.string().max(256), z.string().max(256)).default({}),
  }),
  spec: z.object({
    protocol: z.enum(databaseProtocols, { error: 'protocol is postgres or mysql' }),
    uri: databaseUriSchema,
    /** PEM of the CA that signed the database's server certificate; absent: the system's CAs. */
    ca_cert: z.string().max(65_536).optional(),
    tls: z
      .object({ mode: z.enum(databaseTlsModes).default('verify-full') })
      .default({ mode: 'verify-full' }),
  }),
});
export type DatabaseResource = z.infer<typeof databaseResourceSchema>;
export type DatabaseResourceInput = z.input<typeof databaseResourceSchema>;

export const databaseJsonSchema = z.object({
  kind: z.literal('db'),
  name: z.string(),
  desc: z.string(),
  protocol: z.string(),
  /** The hosting (spec §9): `self-hosted` for every database Postern reaches today. */
  type: z.string(),
  labels: z.array(nodeLabelSchema),
  /** What this user may name: the database names and users their roles allow here (`*`: any). */
  database_names: z.array(z.string()),
  database_users: z.array(z.string()),
  hostname: z.string(),
  /** Reached through an agent's tunnel. */
  tunnel: z.boolean(),
  status: z.enum(['online', 'offline']),
});
export type DatabaseJson = z.infer<typeof databaseJsonSchema>;

export const databaseSortFields = ['name', 'description', 'type'] as const;
export type DatabaseSortField = (typeof databaseSortFields)[number];
export const defaultDatabaseSort: { field: DatabaseSortField; dir: 'asc' | 'desc' } = {
  field: 'name',
  dir: 'asc',
};

/** `GET /sites/{clusterId}/databases`: searched by name, description and protocol, and labels. */
export const databaseListQuerySchema = resourceListQuerySchema(databaseSortFields);
export type DatabaseListQuery = z.input<typeof databaseListQuerySchema>;

export const databaseListResponseSchema = resourceListResponseSchema(databaseJsonSchema);
export type DatabaseListResponse = z.infer<typeof databaseListResponseSchema>;
