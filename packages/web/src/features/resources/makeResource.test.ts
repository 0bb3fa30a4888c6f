import { describe, expect, it } from 'vitest';
import { makeApp } from '../apps/makeApp';
import { makeDatabase } from '../databases/makeDatabase';
import { makeDesktop } from '../desktops/makeDesktop';
import { makeKubeCluster } from '../kubernetes/makeKubeCluster';
import { makeNode } from '../nodes/makeNode';
import { nodeFixtures } from '../nodes/fixtures';
import { resourceFixtures } from './fixtures';
import {
  kindsOf,
  makeResource,
  noFilters,
  resourceDetail,
  withKinds,
  withView,
  type Resource,
} from './makeResource';

describe('makeResource', () => {
  it('keeps each item as its own kind’s page models it, with a name, labels and a unique id', () => {
    // The id is the one the server pins by (unifiedResourceId), so a pin shows on its row.
    const [node, app, db, kube, desktop] = resourceFixtures.map(makeResource) as [
      Resource,
      Resource,
      Resource,
      Resource,
      Resource,
    ];
    expect(node).toEqual({
      kind: 'node',
      node: makeNode(nodeFixtures[0]!),
      id: `node/${nodeFixtures[0]!.id}`,
      key: nodeFixtures[0]!.id,
      name: 'db-1',
      requiresRequest: false,
      labels: nodeFixtures[0]!.tags,
      status: 'online',
    });
    expect(app).toMatchObject({ kind: 'app', name: 'grafana', status: 'online' });
    expect(app.kind === 'app' && app.app).toEqual(makeApp(resourceFixtures[1] as never));
    expect(db.kind === 'db' && db.db).toEqual(makeDatabase(resourceFixtures[2] as never));
    expect(kube.kind === 'kube_cluster' && kube.cluster).toEqual(
      makeKubeCluster(resourceFixtures[3] as never),
    );
    expect(desktop.kind === 'windows_desktop' && desktop.desktop).toEqual(
      makeDesktop(resourceFixtures[4] as never),
    );
    expect([node, app, db, kube, desktop].map((r) => r.id)).toEqual([
      `node/${nodeFixtures[0]!.id}`,
      'app/grafana',
      'db/orders',
      'kube_cluster/prod',
      'windows_desktop/build-box',
    ]);
  });

  it('details a row by kind: an address, a tunnel, a type or a description', () => {
    const details = resourceFixtures.map((item) => resourceDetail(makeResource(item)));
    expect(details).toEqual([
      { type: 'address', text: '10.0.0.12:3022' },
      { type: 'address', text: 'https://grafana.example.com' },
      { type: 'text', text: 'PostgreSQL' },
      { type: 'text', text: 'Production' },
      { type: 'address', text: '10.0.0.5' },
    ]);
    const tunnelled = makeResource({ ...nodeFixtures[1]!, kind: 'node' });
    expect(resourceDetail(tunnelled)).toEqual({ type: 'tunnel' });
  });
});

describe('kinds filter', () => {
  it('reads known kinds only, in the contract’s order; none means every kind', () => {
    expect(kindsOf(noFilters)).toEqual([]);
    expect(kindsOf({ ...noFilters, extra: { kinds: 'windows_desktop, db,bogus,db' } })).toEqual([
      'db',
      'windows_desktop',
    ]);
  });

  it('writes the kinds comma-separated in the contract’s order, keeping the other filters', () => {
    const filters = { ...noFilters, search: 'web', extra: { kinds: 'app' } };
    expect(withKinds(filters, ['windows_desktop', 'node'])).toEqual({
      ...filters,
      extra: { kinds: 'node,windows_desktop' },
    });
    expect(withKinds(filters, []).extra).toEqual({ kinds: '' });
  });
});

describe('withView', () => {
  it('adds the view’s parameters, leaving each out at its default', () => {
    const filters = withKinds(noFilters, ['app']);
    expect(withView(filters, { pinnedOnly: false, mode: 'accessible' }).extra).toEqual({
      kinds: 'app',
      pinnedOnly: '',
      includedResourceMode: '',
    });
    expect(withView(filters, { pinnedOnly: true, mode: 'requestable' }).extra).toEqual({
      kinds: 'app',
      pinnedOnly: 'true',
      includedResourceMode: 'requestable',
    });
  });

  it('marks a row the search-as roles listed, keyed as a request names it', () => {
    const item = { ...resourceFixtures[2]!, requiresRequest: true };
    expect(makeResource(item as never)).toMatchObject({
      id: 'db/orders',
      key: 'orders',
      requiresRequest: true,
    });
  });
});
