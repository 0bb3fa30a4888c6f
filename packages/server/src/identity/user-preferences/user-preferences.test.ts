import { apiPaths, currentClusterAlias, maxPinnedResources } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { UserPreferencesStore } from './user-preferences.store.js';

// The caller's own preferences: defaults until they choose, a partial PUT that keeps the rest,
// pins per cluster kept apart per user, bad input refused whole, and a deleted user's forgotten.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app?.close());

type Method = 'GET' | 'PUT';
async function call(user: string | null, method: Method, url: string, payload?: object) {
  const headers = user ? await app.signIn(['access'], user) : {};
  const res = await app.server.inject({ method, url, headers, payload });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}
const pinsUrl = apiPaths.userClusterPreferences('test-cluster');
const pins = (resourceIds: string[]) => ({ pinnedResources: { resourceIds } });

describe('user preferences', () => {
  it('answers 401 to every call without a session', async () => {
    expect((await call(null, 'GET', apiPaths.userPreferences)).status).toBe(401);
    const put = { unifiedResourcePreferences: { defaultTab: 'pinned' } };
    expect((await call(null, 'PUT', apiPaths.userPreferences, put)).status).toBe(401);
    expect((await call(null, 'GET', pinsUrl)).status).toBe(401);
    expect((await call(null, 'PUT', pinsUrl, pins(['app/grafana']))).status).toBe(401);
  });

  it('reads the defaults, then keeps what a PUT names and leaves the rest', async () => {
    const fresh = await call('ada', 'GET', apiPaths.userPreferences);
    expect(fresh.body).toEqual({
      unifiedResourcePreferences: { defaultTab: 'all', includedResourceMode: 'accessible' },
    });
    const changed = await call('ada', 'PUT', apiPaths.userPreferences, {
      unifiedResourcePreferences: { defaultTab: 'pinned' },
    });
    expect(changed.status).toBe(200);
    await call('ada', 'PUT', apiPaths.userPreferences, {
      unifiedResourcePreferences: { includedResourceMode: 'all' },
    });
    const read = await call('ada', 'GET', apiPaths.userPreferences);
    expect(read.body).toEqual({
      unifiedResourcePreferences: { defaultTab: 'pinned', includedResourceMode: 'all' },
    });
    // Another user's are their own.
    const other = await call('bea', 'GET', apiPaths.userPreferences);
    expect(other.body.unifiedResourcePreferences).toMatchObject({ defaultTab: 'all' });
  });

  it('keeps both of two changes made at once (two tabs), each over what the other wrote', async () => {
    // On the store, where the two reads meet before either writes (through HTTP the requests'
    // own awaits seldom line them up so).
    const store = new UserPreferencesStore(app.backend);
    await Promise.all([
      store.update('gus', { unifiedResourcePreferences: { defaultTab: 'pinned' } }),
      store.update('gus', { unifiedResourcePreferences: { includedResourceMode: 'requestable' } }),
    ]);
    expect(await store.get('gus')).toEqual({
      unifiedResourcePreferences: { defaultTab: 'pinned', includedResourceMode: 'requestable' },
    });
  });

  it('keeps pins per user and cluster, duplicates once, under the current-cluster alias too', async () => {
    const saved = await call('cal', 'PUT', pinsUrl, pins(['node/1b9d', 'db/orders', 'db/orders']));
    expect(saved.status).toBe(200);
    expect((await call('cal', 'GET', pinsUrl)).body).toEqual(pins(['node/1b9d', 'db/orders']));
    expect((await call('dee', 'GET', pinsUrl)).body).toEqual(pins([]));
    const aliased = apiPaths.userClusterPreferences(currentClusterAlias);
    expect((await call('cal', 'GET', aliased)).body).toEqual(pins(['node/1b9d', 'db/orders']));
  });

  it('refuses bad input whole (400) and a cluster it does not serve (404)', async () => {
    await call('eli', 'PUT', pinsUrl, pins(['app/grafana']));
    const refused = async (url: string, payload: object, message: string) => {
      const res = await call('eli', 'PUT', url, payload);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.message).toContain(message);
    };
    await refused(pinsUrl, pins(['printer/hp']), 'expected <kind>/<name>');
    await refused(pinsUrl, pins(['app/']), 'expected <kind>/<name>');
    const many = Array.from({ length: maxPinnedResources + 1 }, (_, i) => `app/a${i}`);
    await refused(pinsUrl, pins(many), `at most ${maxPinnedResources} pinned resources`);
    await refused(pinsUrl, { pinnedResources: { resourceIds: [] }, extra: 1 }, 'extra');
    await refused(
      apiPaths.userPreferences,
      { unifiedResourcePreferences: { defaultTab: 'starred' } },
      'defaultTab',
    );
    // Nothing of a refused body was written.
    expect((await call('eli', 'GET', pinsUrl)).body).toEqual(pins(['app/grafana']));
    const elsewhere = apiPaths.userClusterPreferences('elsewhere');
    expect((await call('eli', 'GET', elsewhere)).status).toBe(404);
    expect((await call('eli', 'PUT', elsewhere, pins([]))).status).toBe(404);
  });

  it('forgets a deleted user’s preferences, so a new user of that name starts afresh', async () => {
    await app.services.users.create({ name: 'fay', roles: ['access'] }, 'test');
    await call('fay', 'PUT', pinsUrl, pins(['app/grafana']));
    await call('fay', 'PUT', apiPaths.userPreferences, {
      unifiedResourcePreferences: { defaultTab: 'pinned' },
    });
    await app.services.users.remove('fay', 'test');
    await app.services.users.create({ name: 'fay', roles: ['access'] }, 'test');
    expect((await call('fay', 'GET', pinsUrl)).body).toEqual(pins([]));
    const prefs = await call('fay', 'GET', apiPaths.userPreferences);
    expect(prefs.body.unifiedResourcePreferences).toMatchObject({ defaultTab: 'all' });
  });
});
