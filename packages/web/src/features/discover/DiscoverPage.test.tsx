import { screen, waitFor } from '@testing-library/react';
import type userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { aclWith } from '../../test/userContexts';
import { appFixtures } from '../apps/fixtures';
import { manyNodes, nodePage } from '../nodes/fixtures';
import { enrollNamed, issuedToken, renderDiscover as setup, token } from './discover.testkit';
import { joinPollMs } from './useEnroll';

const appsUrl = '/v1/webapi/sites/localhost/apps';
const nodesUrl = '/v1/webapi/sites/localhost/nodes';
const grafana = appFixtures.find((app) => app.name === 'grafana')!;

const fillApp = (user: ReturnType<typeof userEvent.setup>, name: string, uri: string) =>
  enrollNamed(user, 'Application', name, uri);

afterEach(() => vi.unstubAllGlobals());

describe('DiscoverPage', () => {
  it('without the right to create join tokens, shows every kind disabled and says why', async () => {
    setup(() => undefined, aclWith({ nodes: ['list', 'read'] }));
    expect(await screen.findByText('You cannot add resources')).toBeTruthy();
    for (const name of ['Server with the Postern agent', 'Application', 'VNC desktop']) {
      expect((screen.getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
    }
  });

  it('adds a kind the user cannot list, without looking for it', async () => {
    const { calls, user } = setup(
      (method, url) =>
        method === 'POST' && url.pathname === '/v1/webapi/token'
          ? jsonResponse(issuedToken())
          : undefined,
      aclWith({ tokens: ['create'] }),
    );
    // Every kind: these roles list none.
    const notes = await screen.findAllByText(
      'Your roles do not list these: you can add one, but not see it join.',
    );
    expect(notes).toHaveLength(6);
    await fillApp(user, 'grafana', 'http://localhost:3000');
    expect(await screen.findByLabelText('Enroll command')).toBeTruthy();
    expect(screen.getByText(/Your roles do not list applications/)).toBeTruthy();
    expect(calls('POST', '/v1/webapi/token')).toHaveLength(1);
    expect(calls('GET', appsUrl)).toEqual([]);
  });

  it('checks the form before asking for a token', async () => {
    const { calls, user } = setup(() => undefined);
    await fillApp(user, 'grafana', 'ftp://nas');
    expect(
      await screen.findByText('uri must be http://, https:// or tcp://host:port'),
    ).toBeTruthy();
    expect(calls('POST', '/v1/webapi/token')).toEqual([]);
    expect(calls('GET', appsUrl)).toEqual([]);
  });

  it('refuses a name already enrolled, without making a token', async () => {
    const { calls, user } = setup((method, url) =>
      method === 'GET' && url.pathname === appsUrl
        ? jsonResponse({ items: [grafana], startKey: '', totalCount: 1 })
        : undefined,
    );
    await fillApp(user, 'grafana', 'http://localhost:3000');
    expect(
      await screen.findByText(
        'an application named grafana is already enrolled: choose another name',
      ),
    ).toBeTruthy();
    expect(calls('GET', appsUrl)[0]!.url.searchParams.get('search')).toBe('grafana');
    expect(calls('POST', '/v1/webapi/token')).toEqual([]);
  });

  it('makes an App token, shows the install command, and waits until the app is listed', async () => {
    let looks = 0;
    const { calls, user } = setup((method, url) => {
      if (method === 'POST' && url.pathname === '/v1/webapi/token')
        return jsonResponse(issuedToken());
      if (method === 'GET' && url.pathname === appsUrl) {
        // The name check, then one look that finds nothing, then the app.
        looks += 1;
        const items = looks >= 3 ? [grafana] : [];
        return jsonResponse({ items, startKey: '', totalCount: items.length });
      }
    });
    await fillApp(user, 'grafana', 'http://localhost:3000');
    const command = await screen.findByLabelText('Enroll command');
    expect(command.textContent).toBe(
      `curl -fsSL 'http://localhost:3000/scripts/${token}/install-app.sh?name=grafana&uri=http%3A%2F%2Flocalhost%3A3000' | sudo bash`,
    );
    expect(calls('POST', '/v1/webapi/token').map((call) => JSON.parse(String(call.body)))).toEqual([
      { roles: ['App'], join_method: 'token', suggested_agent_matcher_labels: {} },
    ]);
    expect(screen.getByText('Waiting for the application to join…')).toBeTruthy();
    expect(
      await screen.findByText('grafana joined', {}, { timeout: joinPollMs + 2_000 }),
    ).toBeTruthy();
    expect(looks).toBe(3);
    await user.click(screen.getByRole('link', { name: 'View it in the list' }));
    expect(await screen.findByText('the apps list')).toBeTruthy();
  });

  it("waits for a server by the token's resource id, and puts the form's labels in the token", async () => {
    const { calls, user } = setup((method, url) => {
      if (method === 'POST' && url.pathname === '/v1/webapi/token') {
        return jsonResponse({ ...issuedToken(), roles: ['Node'] });
      }
      if (method === 'GET' && url.pathname === nodesUrl) {
        return jsonResponse(nodePage([manyNodes(1)[0]!]));
      }
    });
    await user.click(await screen.findByRole('button', { name: 'Server with the Postern agent' }));
    await user.type(screen.getByRole('textbox', { name: 'Labels' }), 'env=prod, team=web');
    await user.click(screen.getByRole('checkbox', { name: /self-signed certificate/ }));
    await user.click(screen.getByRole('button', { name: 'Generate command' }));
    expect((await screen.findByLabelText('Enroll command')).textContent).toBe(
      // The test page is served over plain HTTP, so the proxy is named by its URL.
      `sudo postern agent --proxy http://localhost:3000 --token ${token} --data-dir /var/lib/postern/agent --insecure`,
    );
    expect(await screen.findByText('host-01 joined')).toBeTruthy();
    expect(JSON.parse(String(calls('POST', '/v1/webapi/token')[0]!.body))).toEqual({
      roles: ['Node'],
      join_method: 'token',
      suggested_agent_matcher_labels: { env: 'prod', team: 'web' },
    });
    expect(calls('GET', nodesUrl)[0]!.url.searchParams.get('query')).toBe(
      'labels["teleport.internal/resource-id"] == "rid-1"',
    );
  });

  it('says so when the token expired before anything joined', async () => {
    const { user } = setup((method, url) => {
      if (method === 'POST' && url.pathname === '/v1/webapi/token') {
        return jsonResponse(issuedToken(new Date(Date.now() - 1_000)));
      }
      if (method === 'GET' && url.pathname === appsUrl) {
        return jsonResponse({ items: [], startKey: '', totalCount: 0 });
      }
    });
    await fillApp(user, 'grafana', 'http://localhost:3000');
    expect(await screen.findByText('The join token expired')).toBeTruthy();
  });

  it("shows the server's reason when no token can be made", async () => {
    const { user } = setup((method, url) => {
      if (method === 'POST' && url.pathname === '/v1/webapi/token') {
        return errorResponse(403, 'access denied to perform action "create" on "token"');
      }
      if (method === 'GET' && url.pathname === appsUrl) {
        return jsonResponse({ items: [], startKey: '', totalCount: 0 });
      }
    });
    await fillApp(user, 'grafana', 'http://localhost:3000');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('access denied to perform action "create" on "token"');
    await waitFor(() => expect(screen.queryByLabelText('Enroll command')).toBeNull());
  });
});
