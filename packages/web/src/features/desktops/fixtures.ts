import type { DesktopJson, DesktopListResponse } from '@postern/contracts';

const desktop = (overrides: Partial<DesktopJson> & Pick<DesktopJson, 'name'>): DesktopJson => ({
  kind: 'windows_desktop',
  description: '',
  protocol: 'vnc',
  os: 'Linux',
  addr: '',
  host_id: '',
  labels: [],
  logins: [],
  tunnel: false,
  status: 'online',
  ...overrides,
});

/** `GET /v1/webapi/sites/{clusterId}/desktops` items as the server sends them. */
export const desktopFixtures: DesktopJson[] = [
  desktop({
    name: 'build-box',
    description: 'CI build desktop',
    addr: '10.0.0.5',
    host_id: 'proxy',
    labels: [
      { name: 'env', value: 'dev' },
      { name: 'team', value: 'ci' },
    ],
    logins: ['alice', 'ops'],
  }),
  desktop({
    name: 'lab-7',
    os: 'Linux',
    addr: '',
    tunnel: true,
    host_id: '1b2c3d4e-bbbb-4ccc-8ddd-5e6f7a8b9c0d',
    logins: [],
    status: 'offline',
  }),
  desktop({
    name: 'win-11',
    protocol: 'rdp',
    os: 'Windows',
    addr: 'win-11.corp.example:3390',
    logins: ['Administrator'],
  }),
];

export const desktopPage = (items: DesktopJson[] = desktopFixtures): DesktopListResponse => ({
  items,
  startKey: '',
  totalCount: items.length,
});
