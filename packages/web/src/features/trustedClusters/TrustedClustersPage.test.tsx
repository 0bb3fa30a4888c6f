import { EditorView } from '@codemirror/view';
import type { TrustedClusterItem } from '@postern/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { mainRootYaml, trustedClusterFixtures } from './fixtures';
import { newTrustedClusterTemplate } from './trustedClusterTemplate';
import { TrustedClustersPage } from './TrustedClustersPage';

type Route = (method: string, url: string, body: unknown) => Response | undefined;
const listUrl = '/v1/webapi/trustedcluster';

function setup(
  route: Route = () => undefined,
  acl = aclWith({ trustedClusters: 'all' }),
  list: TrustedClusterItem[] = trustedClusterFixtures,
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = route(method, url, body);
    if (answer) return answer;
    if (url === listUrl && method === 'GET') return jsonResponse(list);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<TrustedClustersPage />, { context: userContextFixture(acl) });
  const calls = (method: string) =>
    fetchStub.mock.calls
      .filter(([, init]) => (init?.method ?? 'GET') === method)
      .map(([url, init]) => (init?.body ? [url, JSON.parse(String(init.body))] : [url]));
  return { fetchStub, calls, user: userEvent.setup() };
}

async function editor(): Promise<EditorView> {
  const box = await screen.findByRole('textbox', { name: 'Trusted cluster YAML' });
  const view = EditorView.findFromDOM(box.closest('.cm-editor') as HTMLElement);
  if (!view) throw new Error('no editor view');
  return view;
}

const replaceText = (view: EditorView, text: string) =>
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));

const card = (name: string) => screen.findByRole('article', { name: `Trusted cluster ${name}` });
const connectButton = () => screen.findByRole('button', { name: 'Connect to Root Cluster' });
const withToken = newTrustedClusterTemplate.replace('token: ""', 'token: "abc123"');

afterEach(() => vi.unstubAllGlobals());

describe('TrustedClustersPage', () => {
  it('shows a card per root cluster, by name, with its state and last error', async () => {
    setup();
    expect(await screen.findByRole('heading', { name: 'Trusted Clusters' })).toBeTruthy();
    await card('main.example.com');
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('aria-label'))).toEqual([
      'Trusted cluster eu.example.com',
      'Trusted cluster main.example.com',
      'Trusted cluster staging.example.com',
    ]);
    expect(within(await card('main.example.com')).getByText('Connected')).toBeTruthy();
    expect(within(await card('staging.example.com')).getByText('Disabled')).toBeTruthy();
    const eu = await card('eu.example.com');
    expect(within(eu).getByText('Connecting')).toBeTruthy();
    expect(
      within(eu).getByText('dial eu.example.com:3080: connection refused; retrying'),
    ).toBeTruthy();
    // Only the failing link shows an error.
    expect(within(await card('main.example.com')).queryByText(/refused/)).toBeNull();
  });

  it('explains trusted clusters when there is none, and connects from there', async () => {
    const { user } = setup(undefined, undefined, []);
    expect(await screen.findByText('No trusted clusters yet')).toBeTruthy();
    expect(
      screen.getByText(/so that the root's users can reach this cluster's resources/),
    ).toBeTruthy();
    await user.click(await connectButton());
    const drawer = await screen.findByRole('dialog', { name: 'Connect to a root cluster' });
    const guide = within(drawer).getByRole('region', { name: 'Setup guide' });
    expect(guide.textContent).toContain('postern tokens add --type trusted_cluster');
    expect(guide.textContent).toContain('^regex$');
    expect((await editor()).state.doc.toString()).toBe(newTrustedClusterTemplate);
  });

  it('connects with POST {content} and shows the new card', async () => {
    let created = false;
    const added: TrustedClusterItem = {
      id: 'trusted_cluster:root.example.com',
      kind: 'trusted_cluster',
      name: 'root.example.com',
      content: withToken,
      status: { state: 'connected' },
    };
    // No link is connecting, so the list does not poll: only the save may refresh it.
    const settled = trustedClusterFixtures.filter((item) => item.status?.state !== 'connecting');
    const { calls, user } = setup(
      (method, url) => {
        if (method === 'POST' && url === listUrl) {
          created = true;
          return jsonResponse(added);
        }
        if (method === 'GET' && url === listUrl && created) {
          return jsonResponse([...settled, added]);
        }
        return undefined;
      },
      undefined,
      settled,
    );
    await user.click(await connectButton());
    const drawer = await screen.findByRole('dialog', { name: 'Connect to a root cluster' });
    replaceText(await editor(), withToken);
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('POST')).toEqual([[listUrl, { content: withToken }]]);
    // The drawer closes once the list was asked again.
    expect(calls('GET')).toEqual([[listUrl], [listUrl]]);
    expect(within(await card('root.example.com')).getByText('Connected')).toBeTruthy();
  });

  it("shows the server's 400 at its line and keeps the drawer and the text", async () => {
    const message = 'line 8: spec.token: a join token from the root cluster is required';
    const { user } = setup((method) =>
      method === 'POST' ? errorResponse(400, message, 'bad_parameter') : undefined,
    );
    await user.click(await connectButton());
    const view = await editor();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const list = await screen.findByRole('list', { name: 'Trusted cluster errors' });
    expect(within(list).getByRole('listitem').textContent).toBe(
      'line 8: spec.token: a join token from the root cluster is required',
    );
    const marked = [...document.querySelectorAll('.cm-issue-line')].map((l) => l.textContent);
    expect(marked).toEqual(['  token: ""']);
    expect(screen.getByRole('dialog', { name: 'Connect to a root cluster' })).toBeTruthy();
    expect(view.state.doc.toString()).toBe(newTrustedClusterTemplate);
  });

  it("shows the root's refusal, which names no line, as a message", async () => {
    const message = 'the root cluster main.example.com refused the token: it is expired or unknown';
    const { user } = setup((method) =>
      method === 'POST' ? errorResponse(400, message, 'bad_parameter') : undefined,
    );
    await user.click(await connectButton());
    replaceText(await editor(), withToken);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Could not save the trusted cluster')).toBeTruthy();
    expect(within(alert).getByText(message)).toBeTruthy();
    expect(screen.getByRole('dialog', { name: 'Connect to a root cluster' })).toBeTruthy();
  });

  it('edits with PUT to the trusted cluster by name, explaining the token placeholder', async () => {
    const { calls, user } = setup((method) =>
      method === 'PUT' ? jsonResponse(trustedClusterFixtures[1]) : undefined,
    );
    await user.click(
      within(await card('main.example.com')).getByRole('button', { name: 'Edit main.example.com' }),
    );
    const drawer = await screen.findByRole('dialog', {
      name: 'Edit trusted cluster main.example.com',
    });
    expect(within(drawer).getByText(/Keep the placeholder to keep the stored token/)).toBeTruthy();
    const view = await editor();
    expect(view.state.doc.toString()).toBe(mainRootYaml);
    const edited = mainRootYaml.replace('enabled: true', 'enabled: false');
    replaceText(view, edited);
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('PUT')).toEqual([[`${listUrl}/main.example.com`, { content: edited }]]);
    expect(calls('POST')).toEqual([]);
  });

  it('deletes after a confirmation, by name', async () => {
    const { calls, user } = setup();
    await user.click(
      within(await card('eu.example.com')).getByRole('button', { name: 'Delete eu.example.com' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Delete Trusted Cluster' });
    expect(within(dialog).getByText('eu.example.com')).toBeTruthy();
    expect(calls('DELETE')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('DELETE').map(([url]) => url)).toEqual([`${listUrl}/eu.example.com`]);
  });

  it('offers no action to a user who may only list and read', async () => {
    setup(undefined, aclWith({ trustedClusters: ['list', 'read'] }));
    const main = await card('main.example.com');
    expect(within(main).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Connect to Root Cluster' })).toBeNull();
  });

  it('offers each action only with its own verb', async () => {
    setup(undefined, aclWith({ trustedClusters: ['list', 'read', 'edit'] }));
    const main = await card('main.example.com');
    expect(within(main).getByRole('button', { name: 'Edit main.example.com' })).toBeTruthy();
    expect(within(main).queryByRole('button', { name: 'Delete main.example.com' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Connect to Root Cluster' })).toBeNull();
  });

  it('tells a user who may not create, with nothing to list, to ask an administrator', async () => {
    setup(undefined, aclWith({ trustedClusters: ['list', 'read', 'remove'] }), []);
    expect(await screen.findByText(/ask an administrator/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Connect to Root Cluster' })).toBeNull();
  });
});
