import { z } from 'zod';
import { nodeLabelSchema } from './nodes.js';
import {
  resourceListMaxLimit,
  resourceListQuerySchema,
  resourceListResponseSchema,
} from './resource-list.js';

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

// ---------------------------------------------------------------------------------------------
// Writes and the other calls of spec §7 (docs/databases.md, "The web API").

const labelNameSchema = z.string().min(1, 'a label name is not empty').max(256);
const labelValueSchema = z.string().max(256);

/**
 * Labels in a write: as the list returns them (`[{name, value}]`, the reference's shape) or as a
 * resource file holds them (`{name: value}`); a name given twice is refused.
 */
export const databaseLabelsInputSchema = z
  .preprocess(
    (value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.entries(value).map(([name, labelValue]) => ({ name, value: labelValue }))
        : value,
    z
      .array(z.object({ name: labelNameSchema, value: labelValueSchema }))
      .max(64, 'at most 64 labels'),
  )
  .transform((labels, ctx) => {
    const record: Record<string, string> = {};
    for (const { name, value } of labels) {
      if (Object.hasOwn(record, name)) {
        ctx.addIssue({ code: 'custom', message: `label ${name} is given twice` });
        return z.NEVER;
      }
      record[name] = value;
    }
    return record;
  });

/** PEM of the CA that signed the database's server certificate. */
export const databaseCaCertSchema = z
  .string()
  .max(65_536)
  .refine((pem) => pem.includes('-----BEGIN CERTIFICATE-----'), {
    message: 'a PEM certificate (-----BEGIN CERTIFICATE-----)',
  });

const databaseTlsInputSchema = z.object({
  mode: z.enum(databaseTlsModes, { error: `one of ${databaseTlsModes.join(', ')}` }),
});

/** What a write may not name: a key outside the schema is refused by name, never ignored. */
const unknownKeys = (allowed: string) => (issue: { code?: string; keys?: string[] }) => {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const keys = issue.keys ?? [];
  const fields = keys.length > 1 ? 'fields' : 'field';
  return `unknown or unchangeable ${fields}: ${keys.join(', ')} (allowed: ${allowed})`;
};

/**
 * `POST /sites/{clusterId}/databases` (the reference's Discover flow): a database served by the
 * proxy itself, as `postern create -f` makes one. Its name must be free.
 */
export const createDatabaseRequestSchema = z.strictObject(
  {
    name: databaseNameSchema,
    description: z.string().max(1024).default(''),
    protocol: z.enum(databaseProtocols, { error: 'protocol is postgres or mysql' }),
    uri: databaseUriSchema,
    labels: databaseLabelsInputSchema.default({}),
    ca_cert: databaseCaCertSchema.optional(),
    tls: databaseTlsInputSchema.optional(),
  },
  { error: unknownKeys('name, description, protocol, uri, labels, ca_cert, tls') },
);
export type CreateDatabaseRequest = z.input<typeof createDatabaseRequestSchema>;

/**
 * `PUT /sites/{clusterId}/databases/{database}`: changes what is given, keeps the rest. The name
 * and protocol are fixed; `ca_cert: null` drops the CA (the system's CAs then vouch for the
 * database). Only databases made through the API or `postern create -f` can be changed here.
 */
export const updateDatabaseRequestSchema = z
  .strictObject(
    {
      description: z.string().max(1024).optional(),
      uri: databaseUriSchema.optional(),
      labels: databaseLabelsInputSchema.optional(),
      ca_cert: databaseCaCertSchema.nullable().optional(),
      tls: databaseTlsInputSchema.optional(),
    },
    { error: unknownKeys('description, uri, labels, ca_cert, tls') },
  )
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'name something to change: description, uri, labels, ca_cert or tls',
    // Only about a body that is otherwise right: an unknown field is the news then.
    when: (payload) => payload.issues.length === 0,
  });
export type UpdateDatabaseRequest = z.input<typeof updateDatabaseRequestSchema>;

/**
 * A database service (spec §3): what serves databases and which databases made through the API
 * it takes on, by their labels (`{"*": ["*"]}`: any). The proxy serves those itself; an agent
 * serves only the databases named on its command line (`--db`), so it matches none.
 */
export const databaseServiceJsonSchema = z.object({
  name: z.string(),
  matcherLabels: z.record(z.string(), z.array(z.string())),
  /** The databases it serves now that the caller may see. */
  databases: z.array(z.string()),
});
export type DatabaseServiceJson = z.infer<typeof databaseServiceJsonSchema>;

/** `GET /sites/{clusterId}/databaseservices`: by name; few, so one page unless a limit asks. */
export const databaseServiceListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(resourceListMaxLimit).default(resourceListMaxLimit),
  startKey: z.string().max(512).default(''),
});
export const databaseServiceListResponseSchema = z.object({
  items: z.array(databaseServiceJsonSchema),
  /** The key of the next page; '' at the end. */
  startKey: z.string(),
});
export type DatabaseServiceListResponse = z.infer<typeof databaseServiceListResponseSchema>;

/**
 * `GET /sites/{clusterId}/databases/{database}/iam/policy`. The reference answers an AWS IAM
 * policy for an RDS database; Postern reaches only self-hosted databases, with certificates, so
 * the answer is that none is needed (`type: "none"`).
 */
export const databaseIamPolicyResponseSchema = z.object({
  type: z.literal('none'),
  aws: z.null(),
});
export type DatabaseIamPolicyResponse = z.infer<typeof databaseIamPolicyResponseSchema>;

const ipv4Pattern =
  /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const dnsNamePattern =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Whether `text` is an IPv6 address (without brackets); URL's parser knows the grammar. */
function isIpv6(text: string): boolean {
  if (!/^[0-9a-f:.]+$/i.test(text) || !text.includes(':')) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/** How a database server's host name is written in its certificate: a DNS name or an IP. */
export function databaseHostKind(hostname: string): 'dns' | 'ip' | undefined {
  if (ipv4Pattern.test(hostname) || isIpv6(hostname)) return 'ip';
  // All digits and dots is an address or nothing: 10.0.0.256 is no host name.
  if (/^[\d.]+$/.test(hostname)) return undefined;
  return dnsNamePattern.test(hostname) ? 'dns' : undefined;
}

/** The longest and default life of a certificate from `POST sign/db`. */
export const databaseServerCertMaxTtl = '8760h';
export const databaseServerCertDefaultTtl = '2160h';

/**
 * `POST /sites/{clusterId}/sign/db`: a server certificate for a database at `hostname` (a DNS
 * name or an IP address), so that it runs TLS the proxy trusts. `ttl` is a duration in hours
 * and minutes ('2160h', '720h30m'), at most a year.
 */
export const signDatabaseCertRequestSchema = z.strictObject(
  {
    hostname: z
      .string()
      .trim()
      .max(253)
      .refine((host) => databaseHostKind(host) !== undefined, {
        message: 'a DNS name (db1.example.com) or an IP address',
      }),
    ttl: z.string().trim().max(32).default(databaseServerCertDefaultTtl),
  },
  { error: unknownKeys('hostname, ttl') },
);
export type SignDatabaseCertRequest = z.input<typeof signDatabaseCertRequestSchema>;

export const signDatabaseCertResponseSchema = z.object({
  /** PEM: the server certificate, for the database's `ssl_cert_file`. */
  cert: z.string(),
  /** PEM (PKCS#8): its private key, for `ssl_key_file`; it is not kept anywhere. */
  key: z.string(),
  /** PEM: the database client CA, for `ssl_ca_file`, and the `ca_cert` of the database resource. */
  ca: z.string(),
  /** RFC 3339: when the certificate expires. */
  expires: z.string(),
});
export type SignDatabaseCertResponse = z.infer<typeof signDatabaseCertResponseSchema>;
