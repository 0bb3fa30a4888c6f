import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { createMemoryRouter, Link, RouterProvider, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { renderWithTheme } from '../test/render';
import { NavigationBlocker } from './NavigationBlocker';

function Editor() {
  const [dirty, setDirty] = useState(false);
  return (
    <>
      <button onClick={() => setDirty(true)}>edit</button>
      <Link to="/web/support">go elsewhere</Link>
      <Link to="/web/roles?tab=2">same page, new search</Link>
      <NavigationBlocker when={dirty} />
    </>
  );
}

function Where() {
  return <output aria-label="path">{useLocation().pathname}</output>;
}

function renderEditor() {
  const router = createMemoryRouter(
    [
      {
        path: '/web/roles',
        element: (
          <>
            <Editor />
            <Where />
          </>
        ),
      },
      { path: '/web/support', element: <Where /> },
    ],
    { initialEntries: ['/web/roles'] },
  );
  renderWithTheme(<RouterProvider router={router} />);
  return router;
}

const path = () => screen.getByRole('status', { name: 'path' }).textContent;

describe('NavigationBlocker', () => {
  it('does not block while there is nothing to lose', async () => {
    renderEditor();
    await userEvent.setup().click(screen.getByText('go elsewhere'));
    expect(path()).toBe('/web/support');
  });

  it('asks before leaving; Stay keeps the page', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByText('edit'));
    await user.click(screen.getByText('go elsewhere'));
    expect(await screen.findByRole('dialog', { name: 'Leave this page?' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Stay' }));
    expect(path()).toBe('/web/roles');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Leave proceeds with the navigation', async () => {
    const user = userEvent.setup();
    renderEditor();
    await user.click(screen.getByText('edit'));
    await user.click(screen.getByText('go elsewhere'));
    await user.click(await screen.findByRole('button', { name: 'Leave' }));
    expect(path()).toBe('/web/support');
  });

  it('lets search changes on the same page through', async () => {
    const user = userEvent.setup();
    const router = renderEditor();
    await user.click(screen.getByText('edit'));
    await user.click(screen.getByText('same page, new search'));
    expect(router.state.location.search).toBe('?tab=2');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
