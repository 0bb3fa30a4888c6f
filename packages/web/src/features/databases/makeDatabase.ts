import {
  databaseTypeTitles,
  type DatabaseJson,
  type DatabaseSortField,
  type NodeLabel,
} from '@postern/contracts';
import type { ListFilters } from '../../components/resourceList/listFilters';

/** The console's model of a database (spec §3 Database). */
export interface Database {
  name: string;
  description: string;
  /** The protocol's title (spec §9): PostgreSQL, MySQL/MariaDB, … */
  type: string;
  protocol: string;
  /** Where it is hosted (spec §9): Self-hosted for every database Postern reaches today. */
  hosting: string;
  labels: NodeLabel[];
  /** The database names and users this user may pick here; `*` means any. */
  names: string[];
  users: string[];
  hostname: string;
  tunnel: boolean;
  status: 'online' | 'offline';
}

const hostingTitles: Record<string, string> = {
  'self-hosted': 'Self-hosted',
  rds: 'Amazon RDS',
  rdsproxy: 'RDS Proxy',
  redshift: 'Redshift',
  'redshift-serverless': 'Redshift Serverless',
  elasticache: 'ElastiCache',
  memorydb: 'MemoryDB',
  keyspace: 'Keyspaces',
  dynamodb: 'DynamoDB',
  opensearch: 'OpenSearch',
  gcp: 'Cloud SQL',
  azure: 'Azure',
};

/** Spec §9: Snowflake is a hosted service, so its protocol names the hosting whatever `type` says. */
function hostingTitle(json: DatabaseJson): string {
  if (json.protocol === 'snowflake') return 'Snowflake';
  return hostingTitles[json.type] ?? json.type;
}

export function makeDatabase(json: DatabaseJson): Database {
  return {
    name: json.name,
    description: json.desc,
    type: databaseTypeTitles[json.protocol] ?? json.protocol,
    protocol: json.protocol,
    hosting: hostingTitle(json),
    labels: json.labels,
    names: json.database_names,
    users: json.database_users,
    hostname: json.hostname,
    tunnel: json.tunnel,
    status: json.status,
  };
}

export interface DatabasePage {
  databases: Database[];
  startKey: string;
  totalCount: number;
}

export type DatabaseFilters = ListFilters<DatabaseSortField>;

export const noFilters: DatabaseFilters = { search: '', query: '' };

/**
 * The command that starts the database's client through the proxy (docs/databases.md); with
 * `leaf`, a trusted leaf cluster's database, through this cluster (`--cluster`).
 */
export function connectCommand(
  db: Pick<Database, 'name'>,
  dbUser: string,
  dbName: string,
  leaf?: string,
): string {
  const quote = (value: string) =>
    /^[\w.@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
  const user = dbUser.trim() ? quote(dbUser.trim()) : '<db-user>';
  const name = dbName.trim();
  const onLeaf = leaf ? ` --cluster ${leaf}` : '';
  return `postern db connect ${db.name}${onLeaf} --db-user ${user}${name ? ` --db-name ${quote(name)}` : ''}`;
}
