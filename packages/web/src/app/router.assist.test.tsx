import { clientConfigSchema, type UserAcl } from '@postern/contracts';
import { render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeSockets } from '../features/console/tty/fakeSocket';
import { contextUrl, json, serverData, signIn } from '../test/routerHarness';
import { aclWith, userContextFixture } from '../test/userContexts';
import { App } from './App';
import { appRoutes } from './router';

const sockets = fakeSockets();

beforeEach(() => {
  sockets.sockets.length = 0;
  // The page's chat socket, in place of the browser's.
  vi.stubGlobal('WebSocket', function BrowserSocket(url: string) {
    return sockets.create(url);
  });
});
afterEach(() => vi.unstubAllGlobals());

const conversationId = '3f0c1d2e-4b5a-4c6d-8e7f-90a1b2c3d4e5';

/** The console with the assistant switched on (or not) in the client config. */
function renderWith(path: string, acl: UserAcl, assistEnabled: boolean) {
  signIn();
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === contextUrl) return json(userContextFixture(acl));
      if (url === '/v1/webapi/assistant/conversations') return json({ conversations: [] });
      if (url.startsWith('/v1/webapi/assistant/conversations/')) return json({ messages: [] });
      return serverData(url);
    }),
  );
  const config = clientConfigSchema.parse({ proxyCluster: 'root.example.com', assistEnabled });
  const router = createMemoryRouter(appRoutes(), { initialEntries: [path] });
  render(<App router={router} config={config} />);
  return router;
}

const mayAssist = aclWith({ assist: ['list', 'read'] });

describe('assist', () => {
  it('/web/assist shows Assist when the cluster enables it and the user may list it', async () => {
    renderWith('/web/assist', mayAssist, true);
    expect(await screen.findByRole('heading', { name: 'Assist', level: 2 })).toBeTruthy();
    expect(
      await screen.findByText('Ask about your servers, or have a command run on them'),
    ).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    const resources = within(nav).getByRole('group', { name: 'Resources' });
    expect(within(resources).getByRole('link', { name: 'Assist' }).getAttribute('href')).toBe(
      '/web/assist',
    );
    await waitFor(() => expect(document.title).toBe('Assist'));
  });

  it('/web/assist/:conversationId opens the conversation on the proxy cluster', async () => {
    renderWith(`/web/assist/${conversationId}`, mayAssist, true);
    expect(await screen.findByRole('log', { name: 'Messages' })).toBeTruthy();
    // The nav item stays highlighted with a conversation open.
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Assist' }).getAttribute('data-active')).toBe(
      'true',
    );
    await waitFor(() => expect(sockets.sockets).toHaveLength(1));
    expect(sockets.last.url).toMatch(
      new RegExp(
        `^wss?://[^/]+/v1/webapi/sites/root\\.example\\.com/assistant\\?conversation_id=${conversationId}$`,
      ),
    );
  });

  it.each([
    ['the cluster does not enable it', mayAssist, false],
    ['the user may not list it', aclWith({ users: ['list', 'read'] }), true],
  ])('/web/assist shows Access Denied when %s', async (_why, acl, enabled) => {
    renderWith('/web/assist', acl, enabled);
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: 'Assist' })).toBeNull();
    expect(sockets.sockets).toHaveLength(0);
  });
});
