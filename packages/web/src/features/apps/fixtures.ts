import type { AppJson, AppListResponse } from '@postern/contracts';

const app = (overrides: Partial<AppJson> & Pick<AppJson, 'name'>): AppJson => ({
  kind: 'app',
  description: '',
  uri: 'http://localhost:3000',
  publicAddr: `${overrides.name}.proxy.example.com`,
  fqdn: `${overrides.name}.proxy.example.com`,
  clusterId: 'root',
  labels: [],
  isTcp: false,
  tunnel: false,
  status: 'online',
  awsConsole: false,
  awsRoles: [],
  ...overrides,
});

/** `GET /v1/webapi/sites/{clusterId}/apps` items as the server sends them. */
export const appFixtures: AppJson[] = [
  app({
    name: 'grafana',
    description: 'Dashboards',
    uri: 'http://127.0.0.1:3000',
    publicAddr: 'grafana.example.com',
    fqdn: 'grafana.example.com',
    labels: [
      { name: 'env', value: 'prod' },
      { name: 'team', value: 'ops' },
    ],
  }),
  app({
    name: 'postgres',
    description: 'Orders database',
    uri: 'tcp://10.0.0.5:5432',
    isTcp: true,
    labels: [{ name: 'env', value: 'staging' }],
    tunnel: true,
  }),
  app({
    name: 'wiki',
    description: 'Team wiki',
    uri: 'https://wiki.internal',
    // A leaf that did not say where the app is served: no launch link can be built.
    publicAddr: '',
    status: 'offline',
  }),
];

export function appPage(
  items: AppJson[] = appFixtures,
  startKey = '',
  totalCount = items.length,
): AppListResponse {
  return { items, startKey, totalCount };
}

/** `count` apps named app-01… for paging tests. */
export function manyApps(count: number): AppJson[] {
  return Array.from({ length: count }, (_, i) =>
    app({ name: `app-${String(i + 1).padStart(2, '0')}` }),
  );
}
