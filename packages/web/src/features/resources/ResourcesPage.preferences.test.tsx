import type { UnifiedResource, UserContext, UserPreferences } from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import { resourceFixtures, resourcePage } from './fixtures';
import { ResourcesPage } from './ResourcesPage';

// The Resources page's pins, tabs and requestable resources, on a stubbed server that keeps the
// preferences the page saves and answers the list by them.

afterEach(() => {
  vi.unstubAllGlobals();
  resourceCart().clear();
});

const acl = aclWith({
  nodes: ['list', 'read'],
  appServers: ['list', 'read'],
  dbServers: ['list', 'read'],
  kubeServers: ['list', 'read'],
  desktops: ['list', 'read'],
  accessRequests: ['list', 'create'],
});
const searcher = userContextFixture(acl, { allowedSearchAsRoles: ['prod-access'] });

interface Stored {
  view: UserPreferences['unifiedResourcePreferences'];
  pins: string[];
  /** A trusted leaf's pins, which the root passes on to the leaf. */
  leafPins: string[];
}

/**
 * Preferences kept as the server keeps them; the list answers `pinnedOnly` from the stored pins
 * and, with `includedResourceMode`, adds `requestable` marked `requiresRequest`. `failSaves`
 * refuses every PUT.
 */
function fakeServer(
  options: { stored?: Partial<Stored>; requestable?: UnifiedResource[]; failSaves?: boolean } = {},
) {
  const stored: Stored = {
    view: { defaultTab: 'all', includedResourceMode: 'accessible' },
    pins: [],
    leafPins: [],
    ...options.stored,
  };
  const lists: URLSearchParams[] = [];
  const saves: { url: string; body: unknown }[] = [];
  const stub = vi.fn(async (url: string, init?: RequestInit) => {
    const [path, query = ''] = url.split('?');
    const body = (init?.body ? JSON.parse(String(init.body)) : {}) as {
      unifiedResourcePreferences?: Partial<Stored['view']>;
      pinnedResources?: { resourceIds: string[] };
    };
    if (init?.method === 'PUT') {
      saves.push({ url: path!, body });
      if (options.failSaves) return errorResponse(500, 'the store is read-only', 'internal');
    }
    if (path === '/v1/webapi/user/preferences') {
      if (init?.method === 'PUT')
        stored.view = { ...stored.view, ...body.unifiedResourcePreferences };
      return jsonResponse({ unifiedResourcePreferences: stored.view });
    }
    const pinsKey = { localhost: 'pins', leaf: 'leafPins' } as const;
    const pinsOf = /^\/v1\/webapi\/user\/preferences\/(localhost|leaf)$/.exec(path!)?.[1];
    if (pinsOf === 'localhost' || pinsOf === 'leaf') {
      if (init?.method === 'PUT') stored[pinsKey[pinsOf]] = body.pinnedResources!.resourceIds;
      return jsonResponse({ pinnedResources: { resourceIds: stored[pinsKey[pinsOf]] } });
    }
    if (
      path !== '/v1/webapi/sites/localhost/resources' &&
      path !== '/v1/webapi/sites/leaf/resources'
    ) {
      return errorResponse(404, 'not found', 'not_found');
    }
    const params = new URLSearchParams(query);
    lists.push(params);
    const requestable = (options.requestable ?? []).map((item) => ({
      ...item,
      requiresRequest: true,
    }));
    const mode = params.get('includedResourceMode') ?? 'accessible';
    let items = [
      ...(mode === 'requestable' ? [] : resourceFixtures),
      ...(mode === 'accessible' ? [] : requestable),
    ];
    if (params.get('pinnedOnly') === 'true') {
      const pins = path!.includes('/sites/leaf/') ? stored.leafPins : stored.pins;
      items = items.filter((item) =>
        pins.includes(`${item.kind}/${item.kind === 'node' ? item.id : item.name}`),
      );
    }
    return jsonResponse(resourcePage(items));
  });
  vi.stubGlobal('fetch', stub);
  return { stored, lists, saves, calls: stub.mock.calls };
}

function setup(context: UserContext = searcher, cluster = 'localhost') {
  renderPage(<ResourcesPage />, {
    path: '/web/cluster/:clusterId/resources',
    url: `/web/cluster/${cluster}/resources`,
    context,
  });
  return userEvent.setup();
}

const includeSelect = () =>
  screen.queryAllByLabelText('Include').find((element) => element.tagName === 'INPUT');
const rowOf = (name: string) => screen.getByText(name, { selector: 'p' }).closest('tr')!;

describe('ResourcesPage: pins', () => {
  it('opens on the tab the user left it on, asking for the list once', async () => {
    const server = fakeServer({
      stored: {
        view: { defaultTab: 'pinned', includedResourceMode: 'accessible' },
        pins: ['db/orders'],
      },
    });
    setup();
    await screen.findByText('orders');
    expect(screen.queryByText('grafana')).toBeNull();
    expect(server.lists.map((params) => params.get('pinnedOnly'))).toEqual(['true']);
    const tabs = screen.getByRole('radiogroup', { name: 'Show' });
    expect(within(tabs).getByRole('radio', { name: 'Pinned' })).toHaveProperty('checked', true);
  });

  it('pins a row, saves the pins, and lists it under Pinned, which the user’s choice keeps', async () => {
    const server = fakeServer();
    const user = setup();
    await user.click(await screen.findByRole('button', { name: 'Pin grafana' }));
    const unpin = await screen.findByRole('button', { name: 'Unpin grafana' });
    expect(unpin.getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(server.stored.pins).toEqual(['app/grafana']));
    await user.click(screen.getByRole('button', { name: 'Pin orders' }));
    await waitFor(() => expect(server.stored.pins).toEqual(['app/grafana', 'db/orders']));
    // On All the pin shows on its row; the list is not asked again for it.
    expect(server.lists).toHaveLength(1);

    await user.click(screen.getByRole('radio', { name: 'Pinned' }));
    await waitFor(() => expect(server.lists.at(-1)?.get('pinnedOnly')).toBe('true'));
    await waitFor(() => expect(screen.queryByText('db-1')).toBeNull());
    expect(screen.getByText('grafana')).toBeTruthy();
    expect(server.stored.view.defaultTab).toBe('pinned');

    // Unpinned on the Pinned tab, a row leaves it.
    await user.click(screen.getByRole('button', { name: 'Unpin grafana' }));
    await waitFor(() => expect(screen.queryByText('grafana')).toBeNull());
    expect(server.stored.pins).toEqual(['db/orders']);
  });

  it('says how to pin when nothing is pinned', async () => {
    fakeServer({ stored: { view: { defaultTab: 'pinned', includedResourceMode: 'accessible' } } });
    setup();
    expect(await screen.findByRole('heading', { name: 'Nothing pinned yet' })).toBeTruthy();
    // The tabs stay, so All is one click away.
    expect(screen.getByRole('radio', { name: 'All' })).toBeTruthy();
  });

  it('says when a change was not saved, and shows the stored pins again', async () => {
    const server = fakeServer({ failSaves: true });
    const user = setup();
    await user.click(await screen.findByRole('button', { name: 'Pin grafana' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Your Resources preferences were not saved');
    expect(alert.textContent).toContain('the store is read-only');
    expect(server.saves.map((save) => save.url)).toEqual(['/v1/webapi/user/preferences/localhost']);
    expect(await screen.findByRole('button', { name: 'Pin grafana' })).toBeTruthy();
  });

  it("keeps a trusted leaf's pins apart from this cluster's, and lists the leaf's", async () => {
    const server = fakeServer({ stored: { pins: ['app/grafana'] } });
    const user = setup(searcher, 'leaf');
    await user.click(await screen.findByRole('button', { name: 'Pin orders' }));
    await waitFor(() => expect(server.stored.leafPins).toEqual(['db/orders']));
    expect(server.stored.pins).toEqual(['app/grafana']);
    expect(server.saves.map((save) => save.url)).toEqual(['/v1/webapi/user/preferences/leaf']);

    await user.click(screen.getByRole('radio', { name: 'Pinned' }));
    await waitFor(() => expect(screen.queryByText('grafana')).toBeNull());
    expect(screen.getByText('orders')).toBeTruthy();
    expect(server.lists.at(-1)?.get('pinnedOnly')).toBe('true');
  });
});

describe('ResourcesPage: requestable resources', () => {
  const secretDb = { ...resourceFixtures[2]!, name: 'payroll' } as UnifiedResource;

  it('includes what the search-as roles could be granted, marked, and puts it in the cart', async () => {
    const server = fakeServer({ requestable: [secretDb] });
    const user = setup();
    await screen.findByText('grafana');
    expect(server.lists[0]!.has('includedResourceMode')).toBe(false);
    await user.click(includeSelect()!);
    await user.click(await screen.findByRole('option', { name: 'Accessible and requestable' }));
    await screen.findByText('payroll');
    expect(server.lists.at(-1)?.get('includedResourceMode')).toBe('all');
    await waitFor(() => expect(server.stored.view.includedResourceMode).toBe('all'));

    const row = within(rowOf('payroll'));
    expect(row.getByText('Requires request')).toBeTruthy();
    expect(row.queryByRole('button', { name: 'Connect to payroll' })).toBeNull();
    await user.click(row.getByRole('button', { name: 'Add payroll to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'db', clusterName: 'localhost', name: 'payroll', title: 'payroll' },
    ]);
    expect(screen.getByRole('link', { name: 'Request access (1)' })).toBeTruthy();
  });

  it('asks for what is accessible only, whatever is stored, for a user without search-as roles', async () => {
    const server = fakeServer({
      stored: { view: { defaultTab: 'all', includedResourceMode: 'all' } },
      requestable: [secretDb],
    });
    setup(userContextFixture(acl));
    await screen.findByText('grafana');
    expect(server.lists[0]!.has('includedResourceMode')).toBe(false);
    expect(includeSelect()).toBeUndefined();
    expect(screen.queryByText('payroll')).toBeNull();
  });
});
