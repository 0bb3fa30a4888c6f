import { act, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { readStoredToken, storeToken } from '../../api/credentials';
import { TestTheme } from '../../test/render';
import { SessionGate, useSession, useSessionToken } from './SessionGate';
import type { SessionController } from './sessionController';

function Private() {
  const session = useSession();
  return (
    <>
      <p>private page for {useSessionToken()?.accessToken}</p>
      <button onClick={() => void session.logout()}>Logout</button>
    </>
  );
}

function fakeController() {
  let token = readStoredToken();
  const listeners = new Set<() => void>();
  const controller = {
    start: vi.fn(),
    stop: vi.fn(),
    logout: vi.fn(async () => {
      token = null;
      listeners.forEach((l) => l());
    }),
    token: () => token,
    subscribe: (l: () => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    check: vi.fn(),
    checkIdle: vi.fn(),
  } satisfies SessionController;
  return controller;
}

function renderGate(
  path: string,
  redirect: (url: string) => void,
  controller: SessionController = fakeController(),
) {
  const router = createMemoryRouter(
    [
      {
        path: '*',
        element: (
          <SessionGate redirect={redirect} createController={() => controller}>
            <Private />
          </SessionGate>
        ),
      },
    ],
    { initialEntries: [path] },
  );
  return render(
    <TestTheme>
      <RouterProvider router={router} />
    </TestTheme>,
  );
}

describe('SessionGate', () => {
  it('renders private content with a valid stored token', () => {
    storeToken({
      accessToken: 'abc',
      expiresIn: 600,
      created: Date.now(),
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    });
    const redirect = vi.fn();
    renderGate('/web/clusters', redirect);
    expect(screen.getByText('private page for abc')).toBeTruthy();
    expect(redirect).not.toHaveBeenCalled();
  });

  it('runs the session lifecycle while mounted, and hides the page once logged out', async () => {
    storeToken({
      accessToken: 'abc',
      expiresIn: 600,
      created: Date.now(),
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    });
    const controller = fakeController();
    const view = renderGate('/web/clusters', vi.fn(), controller);
    expect(controller.start).toHaveBeenCalled();
    await act(async () => screen.getByRole('button', { name: 'Logout' }).click());
    expect(controller.logout).toHaveBeenCalled();
    expect(screen.queryByText(/private page/)).toBeNull();
    expect(screen.getByRole('status', { name: 'Signing out' })).toBeTruthy();
    view.unmount();
    expect(controller.stop).toHaveBeenCalled();
  });

  it('sends the browser to login with the current path and search as redirect_uri', () => {
    const redirect = vi.fn();
    renderGate('/web/clusters?sort=name', redirect);
    expect(redirect).toHaveBeenCalledWith(
      '/web/login?redirect_uri=%2Fweb%2Fclusters%3Fsort%3Dname',
    );
    expect(screen.queryByText(/private page/)).toBeNull();
  });

  it('treats an expired token as no session', () => {
    storeToken({
      accessToken: 'old',
      expiresIn: 1,
      created: Date.now() - 5000,
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    });
    const redirect = vi.fn();
    renderGate('/web/support', redirect);
    expect(redirect).toHaveBeenCalledWith('/web/login?redirect_uri=%2Fweb%2Fsupport');
  });
});
