import { render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { storeToken } from '../../api/credentials';
import { TestTheme } from '../../test/render';
import { SessionGate, useSessionToken } from './SessionGate';

function Private() {
  return <p>private page for {useSessionToken().accessToken}</p>;
}

function renderGate(path: string, redirect: (url: string) => void) {
  const router = createMemoryRouter(
    [
      {
        path: '*',
        element: (
          <SessionGate redirect={redirect}>
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
