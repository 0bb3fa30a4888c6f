import { EditorView } from '@codemirror/view';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageLocation } from '../../lib/pageLocation';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { ConnectorsPage } from './ConnectorsPage';
import { connectorFixtures, googleYaml } from './fixtures';
import { samlTemplate } from './templates/samlTemplate';

type Route = (method: string, url: string, body: unknown) => Response | undefined;
type Lists = typeof connectorFixtures;

function setup(
  route: Route = () => undefined,
  acl = aclWith({ authConnectors: 'all' }),
  lists: Lists = connectorFixtures,
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = route(method, url, body);
    if (answer) return answer;
    const kind = /^\/v1\/webapi\/(oidc|saml|github)$/.exec(url)?.[1] as keyof Lists | undefined;
    if (kind && method === 'GET') return jsonResponse(lists[kind]);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<ConnectorsPage />, { context: userContextFixture(acl) });
  const calls = (method: string) =>
    fetchStub.mock.calls
      .filter(([, init]) => (init?.method ?? 'GET') === method)
      .map(([url, init]) => (init?.body ? [url, JSON.parse(String(init.body))] : [url]));
  return { fetchStub, calls, user: userEvent.setup() };
}

async function editor(): Promise<EditorView> {
  const box = await screen.findByRole('textbox', { name: 'Connector YAML' });
  const view = EditorView.findFromDOM(box.closest('.cm-editor') as HTMLElement);
  if (!view) throw new Error('no editor view');
  return view;
}

const replaceText = (view: EditorView, text: string) =>
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));

const card = (name: string) => screen.findByRole('article', { name });

afterEach(() => vi.unstubAllGlobals());

describe('ConnectorsPage', () => {
  it('shows a card per connector from the three lists, by name, with kind and display name', async () => {
    const { calls } = setup();
    expect(await screen.findByRole('heading', { name: 'Manage Auth Connectors' })).toBeTruthy();
    await card('OIDC connector google');
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('aria-label'))).toEqual([
      'GitHub connector github',
      'OIDC connector google',
      'SAML connector okta',
    ]);
    const okta = await card('SAML connector okta');
    expect(within(okta).getByText('Okta Workforce')).toBeTruthy();
    expect(within(okta).getByText('SAML')).toBeTruthy();
    expect(calls('GET').map(([url]) => url)).toEqual([
      '/v1/webapi/oidc',
      '/v1/webapi/saml',
      '/v1/webapi/github',
    ]);
  });

  it('creates a SAML connector from its template, with the guide showing its URLs', async () => {
    const { calls, user } = setup();
    await user.click(await screen.findByRole('button', { name: 'New connector' }));
    await user.click(await screen.findByRole('menuitem', { name: 'SAML', hidden: true }));
    const drawer = await screen.findByRole('dialog', { name: 'New SAML connector' });
    const template = samlTemplate(pageLocation.origin());
    expect((await editor()).state.doc.toString()).toBe(template);
    const guide = within(drawer).getByRole('region', { name: 'Setup guide' });
    expect(guide.textContent).toContain(`${pageLocation.origin()}/v1/webapi/saml/acs/my-saml`);
    expect(guide.textContent).toContain(`${pageLocation.origin()}/v1/webapi/saml/metadata/my-saml`);

    // The guide follows the name as it is typed.
    replaceText(await editor(), template.replaceAll('my-saml', 'corp'));
    expect(guide.textContent).toContain('/v1/webapi/saml/acs/corp');

    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('POST')).toEqual([
      ['/v1/webapi/saml', { content: template.replaceAll('my-saml', 'corp') }],
    ]);
  });

  it('edits with PUT to the connector of its kind, with its revision, explaining the secret placeholder', async () => {
    const { calls, user } = setup();
    await user.click(
      within(await card('OIDC connector google')).getByRole('button', { name: 'Edit google' }),
    );
    const drawer = await screen.findByRole('dialog', { name: 'Edit OIDC connector google' });
    expect(within(drawer).getByText(/Keep the placeholder to keep the stored secret/)).toBeTruthy();
    expect(within(drawer).getByRole('region', { name: 'Setup guide' }).textContent).toContain(
      `${pageLocation.origin()}/v1/webapi/oidc/callback`,
    );
    const view = await editor();
    expect(view.state.doc.toString()).toBe(googleYaml);
    const edited = googleYaml.replace('admins', 'platform');
    replaceText(view, edited);
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('PUT')).toEqual([['/v1/webapi/oidc/google', { content: edited }]]);
    expect(edited).toContain("revision: '7'");
  });

  it('on a 409 keeps what the user typed, and Reload replaces it with the stored connector', async () => {
    const conflict =
      'the oidc connector google was changed by someone else since you opened it: reload and reapply your change';
    const stored = googleYaml.replace('admins', 'someone-else').replace("'7'", "'8'");
    let saved = false;
    const { calls, user } = setup((method, url) => {
      if (method === 'PUT') {
        saved = true;
        return errorResponse(409, conflict, 'compare_failed');
      }
      if (method === 'GET' && url === '/v1/webapi/oidc' && saved) {
        return jsonResponse([{ ...connectorFixtures.oidc[0], content: stored }]);
      }
      return undefined;
    });
    await user.click(
      within(await card('OIDC connector google')).getByRole('button', { name: 'Edit google' }),
    );
    const typed = googleYaml.replace('admins', 'mine');
    replaceText(await editor(), typed);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('This connector was changed by someone else')).toBeTruthy();
    expect(within(alert).getByText(conflict)).toBeTruthy();
    // Nothing is lost: the drawer and the typed text stay.
    expect(screen.getByRole('dialog', { name: 'Edit OIDC connector google' })).toBeTruthy();
    expect((await editor()).state.doc.toString()).toBe(typed);

    await user.click(within(alert).getByRole('button', { name: 'Reload' }));
    await waitFor(async () => expect((await editor()).state.doc.toString()).toBe(stored));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls('PUT')).toHaveLength(1);
  });

  it("shows the server's errors at their lines and keeps the drawer open", async () => {
    const message = 'line 8: spec.issuer_url: must be an https URL';
    const { user } = setup((method) =>
      method === 'PUT' ? errorResponse(400, message, 'bad_parameter') : undefined,
    );
    await user.click(
      within(await card('OIDC connector google')).getByRole('button', { name: 'Edit google' }),
    );
    await editor();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const list = await screen.findByRole('list', { name: 'Connector errors' });
    expect(within(list).getByRole('listitem').textContent).toBe(message);
    const marked = [...document.querySelectorAll('.cm-issue-line')].map((l) => l.textContent);
    expect(marked).toEqual(['  issuer_url: https://accounts.google.com']);
    expect(screen.getByRole('dialog', { name: 'Edit OIDC connector google' })).toBeTruthy();
  });

  it('shows a refusal without a line as a message', async () => {
    const { user } = setup((method) =>
      method === 'POST'
        ? errorResponse(409, 'oidc connector "my-oidc" already exists', 'already_exists')
        : undefined,
    );
    await user.click(await screen.findByRole('button', { name: 'New connector' }));
    await user.click(await screen.findByRole('menuitem', { name: 'OIDC', hidden: true }));
    await editor();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('oidc connector "my-oidc" already exists')).toBeTruthy();
  });

  it('deletes after a confirmation, at the connector of its kind', async () => {
    const { calls, user } = setup();
    await user.click(
      within(await card('GitHub connector github')).getByRole('button', { name: 'Delete github' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Delete Auth Connector' });
    expect(calls('DELETE')).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('DELETE').map(([url]) => url)).toEqual(['/v1/webapi/github/github']);
  });

  it('offers only what the ACL allows', async () => {
    setup(undefined, aclWith({ authConnectors: ['list', 'read'] }));
    const google = await card('OIDC connector google');
    expect(within(google).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'New connector' })).toBeNull();
  });

  it('explains single sign-on when there is no connector, and creates from there', async () => {
    const { user } = setup(undefined, undefined, { oidc: [], saml: [], github: [] });
    expect(await screen.findByText('No auth connectors yet')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Add a GitHub connector' }));
    const drawer = await screen.findByRole('dialog', { name: 'New GitHub connector' });
    const callback = `${pageLocation.origin()}/v1/webapi/github/callback`;
    expect(within(drawer).getByRole('region', { name: 'Setup guide' }).textContent).toContain(
      callback,
    );
    const text = (await editor()).state.doc.toString();
    expect(text).toContain('teams_to_roles:');
    expect(text).toContain(`redirect_url: ${callback}`);
  });

  it('shows a failed list with the server message and a retry', async () => {
    let samlFails = true;
    const { user } = setup((method, url) =>
      method === 'GET' && url === '/v1/webapi/saml' && samlFails
        ? errorResponse(500, 'saml connectors could not be read')
        : undefined,
    );
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('saml connectors could not be read')).toBeTruthy();
    samlFails = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await card('SAML connector okta')).toBeTruthy();
  });
});
