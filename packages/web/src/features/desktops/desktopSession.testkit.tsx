import { clientConfigSchema, type UserAcl } from '@postern/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { appRoutes } from '../../app/router';
import { jsonResponse, renderRoutes, storeTestBearer } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { presetAcls, userContextFixture } from '../../test/userContexts';
import type { DesktopDeps } from './desktopConnection';
import { DesktopSessionPage } from './DesktopSessionPage';
import { FakeDesktopSocket } from './fakeDesktopSocket';
import { rfbInstances, type FakeRfb } from './fakeRfb';

// The desktop session page's tests share this: the browser's WebSocket replaced by fake desktop
// sockets, and noVNC by FakeRfb (each test file mocks `@novnc/novnc` with it itself, as vi.mock
// must stand in the test file).

/** The sockets the page opened since the test began, oldest first. */
export const sockets: FakeDesktopSocket[] = [];

class BrowserSocket extends FakeDesktopSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
}

/** Installs the fakes around each test of the file that calls it. */
export function installDesktopSessionFakes(): void {
  beforeEach(() => {
    sockets.length = 0;
    rfbInstances.length = 0;
    vi.stubGlobal('WebSocket', BrowserSocket);
    storeTestBearer();
  });
  afterEach(() => vi.unstubAllGlobals());
}

export const sessionPath = '/web/cluster/root/desktops/build-box/alice';

/** The page as the console routes it, for a user with this ACL. */
export function renderSession(path = sessionPath, acl: UserAcl = presetAcls.access) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url === '/v1/webapi/sites/root/context') return jsonResponse(userContextFixture(acl));
      return jsonResponse({ error: { message: 'not found', code: 'not_found' } }, 404);
    }),
  );
  const config = clientConfigSchema.parse({ proxyCluster: 'root' });
  return renderRoutes(appRoutes(), path, config).router;
}

/** The page alone, with the clipboard, window events or MFA calls of a test. */
export function renderWithDeps(deps: Partial<DesktopDeps>, clipboardSharingEnabled: boolean) {
  const acl = { ...presetAcls.access, clipboardSharingEnabled };
  return renderPage(<DesktopSessionPage deps={deps} />, {
    path: '/web/cluster/:clusterId/desktops/:desktopName/:username',
    url: sessionPath,
    context: userContextFixture(acl),
  });
}

export async function firstSocket(): Promise<FakeDesktopSocket> {
  await waitFor(() => expect(sockets).toHaveLength(1));
  return sockets[0]!;
}

/** Opens the socket, accepts the bearer and lets noVNC connect. */
export async function connect(): Promise<{ socket: FakeDesktopSocket; rfb: FakeRfb }> {
  const socket = await firstSocket();
  act(() => socket.accept());
  const rfb = rfbInstances[0]!;
  act(() => rfb.emit('connect'));
  await screen.findByText('Connected');
  return { socket, rfb };
}

export const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;
export const endedReason = () => screen.findByTestId('desktop-ended-reason');
