import type { DatabaseJson, DatabaseListResponse } from '@postern/contracts';

const database = (overrides: Partial<DatabaseJson> & Pick<DatabaseJson, 'name'>): DatabaseJson => ({
  kind: 'db',
  desc: '',
  protocol: 'postgres',
  type: 'self-hosted',
  labels: [],
  database_names: [],
  database_users: [],
  hostname: 'db.internal',
  tunnel: false,
  status: 'online',
  ...overrides,
});

/** `GET /v1/webapi/sites/{clusterId}/databases` items as the server sends them. */
export const databaseFixtures: DatabaseJson[] = [
  database({
    name: 'orders',
    desc: 'Orders (primary)',
    labels: [{ name: 'env', value: 'prod' }],
    database_users: ['reader', 'writer'],
    database_names: ['orders'],
  }),
  database({
    name: 'billing',
    desc: 'Billing',
    protocol: 'mysql',
    database_users: ['*'],
    database_names: ['*', 'billing'],
    status: 'offline',
  }),
];

export const databasePage = (items: DatabaseJson[]): DatabaseListResponse => ({
  items,
  startKey: '',
  totalCount: items.length,
});
