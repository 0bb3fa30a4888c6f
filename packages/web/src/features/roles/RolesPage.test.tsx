import { EditorView } from '@codemirror/view';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { devRoleYaml, roleFixtures } from './fixtures';
import { RolesPage } from './RolesPage';
import { newRoleTemplate } from './roleTemplate';

type Route = (method: string, url: string, body: unknown) => Response | undefined;

function setup(route: Route = () => undefined, acl = aclWith({ roles: 'all' })) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const answer = route(method, url, body);
    if (answer) return answer;
    if (url === '/v1/webapi/roles' && method === 'GET') return jsonResponse(roleFixtures);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<RolesPage />, { context: userContextFixture(acl) });
  const calls = (method: string) =>
    fetchStub.mock.calls
      .filter(([, init]) => (init?.method ?? 'GET') === method)
      .map(([url, init]) => [url, JSON.parse(String(init?.body))]);
  return { fetchStub, calls, user: userEvent.setup() };
}

/** The CodeMirror view inside the drawer. */
async function editor(): Promise<EditorView> {
  const box = await screen.findByRole('textbox', { name: 'Role YAML' });
  const view = EditorView.findFromDOM(box.closest('.cm-editor') as HTMLElement);
  if (!view) throw new Error('no editor view');
  return view;
}

const replaceText = (view: EditorView, text: string) =>
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));

async function rowActions(user: ReturnType<typeof userEvent.setup>, name: string) {
  const row = (await screen.findByRole('cell', { name })).closest('tr') as HTMLElement;
  await user.click(within(row).getByRole('button', { name: 'Options' }));
}

const menuItem = (name: string) => screen.findByRole('menuitem', { name, hidden: true });

afterEach(() => vi.unstubAllGlobals());

describe('RolesPage', () => {
  it('lists roles by name with their description', async () => {
    setup();
    expect(await screen.findByRole('heading', { name: 'Manage Roles' })).toBeTruthy();
    await screen.findByRole('cell', { name: 'dev' });
    const names = screen
      .getAllByRole('row')
      .slice(1)
      .map((r) => within(r).getAllByRole('cell')[0]?.textContent);
    expect(names).toEqual(['access', 'dev', 'editor']);
    expect(screen.getByRole('cell', { name: 'Developers' })).toBeTruthy();
  });

  it('creates a role from the template in the YAML editor', async () => {
    const { calls, user } = setup((method, url) =>
      method === 'POST' && url === '/v1/webapi/roles'
        ? jsonResponse({ ...roleFixtures[1], name: 'new-role' })
        : undefined,
    );
    await user.click(await screen.findByRole('button', { name: 'Create New Role' }));
    const drawer = await screen.findByRole('dialog', { name: 'Create role' });
    const view = await editor();
    expect(view.state.doc.toString()).toBe(newRoleTemplate);
    await user.click(within(drawer).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Create role' })).toBeNull());
    expect(calls('POST')).toEqual([['/v1/webapi/roles', { content: newRoleTemplate }]]);
  });

  it('shows validation errors in a list and at their lines, keeping the text', async () => {
    const message = [
      "line 9: spec.allow.loginz: unknown field 'spec.allow.loginz'; did you mean 'logins'?",
      "line 15: spec.allow.rules[0].verbs[1]: expected one of 'list', 'read', got 'fly'",
    ].join('\n');
    const { user } = setup((method) =>
      method === 'POST' ? errorResponse(400, message, 'bad_parameter') : undefined,
    );
    await user.click(await screen.findByRole('button', { name: 'Create New Role' }));
    const view = await editor();
    const typed = newRoleTemplate.replace('logins:', 'loginz:').replace('read]', 'fly]');
    replaceText(view, typed);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const list = await screen.findByRole('list', { name: 'Role errors' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((i) => i.textContent),
    ).toEqual([
      "line 9: spec.allow.loginz: unknown field 'spec.allow.loginz'; did you mean 'logins'?",
      "line 15: spec.allow.rules[0].verbs[1]: expected one of 'list', 'read', got 'fly'",
    ]);
    const marked = [...document.querySelectorAll('.cm-issue-line')].map((l) => l.textContent);
    expect(marked).toEqual(["    loginz: ['{{internal.logins}}']", '        verbs: [list, fly]']);
    expect(view.state.doc.toString()).toBe(typed);
    // "line 15" moves the cursor there.
    await user.click(within(list).getByRole('button', { name: 'line 15' }));
    expect(view.state.doc.lineAt(view.state.selection.main.head).number).toBe(15);
  });

  it('edits a role with PUT, saving the YAML with its revision', async () => {
    const { calls, user } = setup((method) =>
      method === 'PUT' ? jsonResponse(roleFixtures[1]) : undefined,
    );
    await rowActions(user, 'dev');
    await user.click(await menuItem('Edit'));
    await screen.findByRole('dialog', { name: 'Edit role dev' });
    const view = await editor();
    expect(view.state.doc.toString()).toBe(devRoleYaml);
    const edited = devRoleYaml.replace('ubuntu', 'alice');
    replaceText(view, edited);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls('PUT')).toEqual([['/v1/webapi/roles/dev', { content: edited }]]);
  });

  it('on a 409 keeps what the user typed, and Reload replaces it with the stored role', async () => {
    const stored = devRoleYaml.replace('ubuntu', 'someone-else').replace('"41"', '"42"');
    const { calls, user } = setup((method, url) => {
      if (method === 'PUT') {
        return errorResponse(
          409,
          'the role was changed by someone else since you opened it: reload and reapply your change',
          'compare_failed',
        );
      }
      if (method === 'GET' && url === '/v1/webapi/roles/dev') {
        return jsonResponse({ ...roleFixtures[1], content: stored });
      }
      return undefined;
    });
    await rowActions(user, 'dev');
    await user.click(await menuItem('Edit'));
    const typed = devRoleYaml.replace('ubuntu', 'mine');
    replaceText(await editor(), typed);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('This role was changed by someone else')).toBeTruthy();
    expect(
      within(alert).getByText(
        'the role was changed by someone else since you opened it: reload and reapply your change',
      ),
    ).toBeTruthy();
    // Nothing is lost: the drawer and the typed text stay.
    expect(screen.getByRole('dialog', { name: 'Edit role dev' })).toBeTruthy();
    expect((await editor()).state.doc.toString()).toBe(typed);

    await user.click(within(alert).getByRole('button', { name: 'Reload' }));
    await waitFor(async () => expect((await editor()).state.doc.toString()).toBe(stored));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls('PUT')).toHaveLength(1);
  });

  it('deletes a role after a confirmation', async () => {
    const { fetchStub, user } = setup();
    await rowActions(user, 'dev');
    await user.click(await menuItem('Delete'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Role' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fetchStub).toHaveBeenCalledWith(
      '/v1/webapi/roles/dev',
      expect.objectContaining({ method: 'DELETE' }),
    );
  });

  it('shows a refused delete in the confirmation', async () => {
    const { user } = setup((method) =>
      method === 'DELETE'
        ? errorResponse(
            400,
            'role dev is still assigned to alice: remove it from them first',
            'bad_parameter',
          )
        : undefined,
    );
    await rowActions(user, 'dev');
    await user.click(await menuItem('Delete'));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Role' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(
      await within(dialog).findByText(
        'role dev is still assigned to alice: remove it from them first',
      ),
    ).toBeTruthy();
  });

  it('offers only what the ACL allows', async () => {
    setup(undefined, aclWith({ roles: ['list', 'read'] }));
    await screen.findByRole('cell', { name: 'dev' });
    expect(screen.queryByRole('button', { name: 'Create New Role' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Options' })).toBeNull();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).toBeNull();
  });
});
