import { describe, expect, it } from 'vitest';
import { matchKnownRoute, routePath } from '../../app/routes';
import { appFixtures } from './fixtures';
import { addrWithProtocolOf, launchUrlOf, makeApp, proxyAppCommand } from './makeApp';

const [grafana, postgres, wiki] = appFixtures.map(makeApp);

describe('makeApp', () => {
  it('maps the JSON to the console’s model (spec §3 App)', () => {
    expect(grafana).toEqual({
      id: 'root-grafana-grafana.example.com',
      name: 'grafana',
      description: 'Dashboards',
      uri: 'http://127.0.0.1:3000',
      publicAddr: 'grafana.example.com',
      labels: [
        { name: 'env', value: 'prod' },
        { name: 'team', value: 'ops' },
      ],
      clusterId: 'root',
      fqdn: 'grafana.example.com',
      launchUrl: '/web/launch/grafana.example.com/root/grafana.example.com',
      awsRoles: [],
      awsConsole: false,
      isTcp: false,
      isCloudOrTcpEndpoint: false,
      addrWithProtocol: 'https://grafana.example.com',
      friendlyName: 'grafana',
      userGroups: [],
      tunnel: false,
      status: 'online',
    });
  });

  it('the launch URL is the launcher route of the route table', () => {
    expect(grafana?.launchUrl).toBe(
      routePath('appLauncher', {
        fqdn: 'grafana.example.com',
        clusterId: 'root',
        publicAddr: 'grafana.example.com',
      }),
    );
    expect(matchKnownRoute(grafana!.launchUrl!)).toBe(true);
  });

  it('builds a launch URL only with fqdn, clusterId and publicAddr all present', () => {
    const parts = { fqdn: 'a.example.com', clusterId: 'root', publicAddr: 'a.example.com' };
    expect(launchUrlOf(parts)).toBe('/web/launch/a.example.com/root/a.example.com');
    expect(launchUrlOf({ ...parts, fqdn: '' })).toBeUndefined();
    expect(launchUrlOf({ ...parts, clusterId: '' })).toBeUndefined();
    expect(launchUrlOf({ ...parts, publicAddr: '' })).toBeUndefined();
    expect(wiki?.launchUrl).toBeUndefined();
  });

  it('encodes each part of the launch URL as one segment', () => {
    expect(launchUrlOf({ fqdn: 'a.example.com', clusterId: 'le af/x', publicAddr: 'p' })).toBe(
      '/web/launch/a.example.com/le%20af%2Fx/p',
    );
  });

  it('writes the address with https:// for HTTP apps and tcp:// for TCP apps', () => {
    expect(postgres?.addrWithProtocol).toBe('tcp://postgres.proxy.example.com');
    expect(postgres?.isTcp).toBe(true);
    expect(postgres?.isCloudOrTcpEndpoint).toBe(true);
    expect(addrWithProtocolOf({ publicAddr: 'x.example.com', uri: 'http://x', isTcp: false })).toBe(
      'https://x.example.com',
    );
  });

  it('without a public address, shows the app’s URI', () => {
    expect(wiki?.addrWithProtocol).toBe('https://wiki.internal');
    expect(wiki?.id).toBe('root-wiki-https://wiki.internal');
  });

  it('a TCP app is reached with postern proxy app <name>', () => {
    expect(proxyAppCommand(postgres!)).toBe('postern proxy app postgres');
  });
});
