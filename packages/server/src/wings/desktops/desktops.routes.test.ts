import {
  apiPaths,
  desktopJsonSchema,
  desktopListResponseSchema,
  desktopResourceSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

// The console's desktop calls: the list, one desktop and whether it is in use, as the roles let a
// user see them, with the logins they allow there; the desktop services.

let app: TestApp;
let linuxTeam: Record<string, string>;
let everyone: Record<string, string>;
let serversOnly: Record<string, string>;
const cluster = 'test-cluster';

beforeAll(async () => {
  app = await createTestApp({
    desktops: [
      desktopResourceSchema.parse({
        kind: 'desktop',
        metadata: { name: 'build-box', description: 'Build', labels: { os: 'linux' } },
        spec: { addr: '127.0.0.1:5900', protocol: 'vnc', os: 'Linux', vnc_password: 'secret' },
      }),
      desktopResourceSchema.parse({
        kind: 'windows_desktop',
        metadata: { name: 'win-1', labels: { os: 'windows' } },
        spec: { addr: '127.0.0.29:3389', protocol: 'rdp', os: 'Windows' },
      }),
    ],
  });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('linux-desktops', {
    windows_desktop_labels: { os: 'linux' },
    windows_desktop_logins: ['dev', '{{internal.windows_logins}}'],
  });
  await role('all-desktops', {
    windows_desktop_labels: { '*': '*' },
    windows_desktop_logins: ['Administrator'],
  });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  await app.services.users.create(
    { name: 'lin', roles: ['linux-desktops'], traits: { windows_logins: ['lin'] } },
    'test',
  );
  linuxTeam = await app.signIn(['linux-desktops'], 'lin');
  everyone = await app.signIn(['all-desktops'], 'root-admin');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});
afterAll(() => app?.close());

describe('GET /sites/{clusterId}/desktops', () => {
  const url = apiPaths.desktops(cluster);

  it('needs a session (401) and desktops list (403)', async () => {
    expect((await app.server.inject({ url })).statusCode).toBe(401);
    expect((await app.server.inject({ url, headers: serversOnly })).statusCode).toBe(403);
  });

  it('lists what the roles reach, with the logins they allow and the usual port left out', async () => {
    const mine = await app.server.inject({ url, headers: linuxTeam });
    expect(mine.statusCode).toBe(200);
    const items = desktopListResponseSchema.parse(mine.json()).items;
    expect(items).toEqual([
      {
        kind: 'windows_desktop',
        name: 'build-box',
        description: 'Build',
        protocol: 'vnc',
        os: 'Linux',
        addr: '127.0.0.1',
        host_id: '',
        labels: [{ name: 'os', value: 'linux' }],
        logins: ['dev', 'lin'],
        tunnel: false,
        status: expect.stringMatching(/^(online|offline)$/),
      },
    ]);
    expect(JSON.stringify(mine.json())).not.toContain('secret');
    const all = await app.server.inject({ url: `${url}?sort=os:desc`, headers: everyone });
    expect(desktopListResponseSchema.parse(all.json()).items.map((d) => d.name)).toEqual([
      'win-1',
      'build-box',
    ]);
  });
});

describe('GET /sites/{clusterId}/desktops/{name} and its active call', () => {
  it('answers one desktop the roles reach, 404 alike for others and unknown ones', async () => {
    const one = await app.server.inject({
      url: apiPaths.desktop(cluster, 'build-box'),
      headers: linuxTeam,
    });
    expect(desktopJsonSchema.parse(one.json())).toMatchObject({ name: 'build-box' });
    for (const name of ['win-1', 'nowhere']) {
      const hidden = await app.server.inject({
        url: apiPaths.desktop(cluster, name),
        headers: linuxTeam,
      });
      expect(hidden.statusCode, name).toBe(404);
    }
  });

  it('says whether a session is live on it', async () => {
    const active = await app.server.inject({
      url: apiPaths.desktopActive(cluster, 'build-box'),
      headers: linuxTeam,
    });
    expect(active.json()).toEqual({ active: false });
    expect(
      (await app.server.inject({ url: apiPaths.desktopActive(cluster, 'build-box') })).statusCode,
    ).toBe(401);
  });
});

describe('GET /sites/{clusterId}/desktopservices', () => {
  it('names the proxy as the service of its own desktops', async () => {
    const res = await app.server.inject({
      url: apiPaths.desktopServices(cluster),
      headers: everyone,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual([
      { name: 'proxy.test', hostname: 'proxy.test', addr: 'proxy.test', labels: [] },
    ]);
    const denied = await app.server.inject({
      url: apiPaths.desktopServices(cluster),
      headers: serversOnly,
    });
    expect(denied.statusCode).toBe(403);
  });
});
