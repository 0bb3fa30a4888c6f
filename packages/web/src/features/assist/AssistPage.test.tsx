import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  accept,
  conversations,
  firstId,
  newId,
  renderAssist,
  secondId,
  socketDeps,
  stubServer,
} from './assist.testkit';

afterEach(() => vi.unstubAllGlobals());

const conversationsUrl = '/v1/webapi/assistant/conversations';
const list = () => screen.getByRole('navigation', { name: 'Conversations' });

describe('AssistPage: the conversations', () => {
  it('lists the conversations, newest first, and invites to start one', async () => {
    stubServer();
    const { deps, sockets } = socketDeps();
    renderAssist('/web/assist', deps);
    expect(await screen.findByRole('link', { name: /Disk space on web servers/ })).toBeTruthy();
    const titles = within(list())
      .getAllByRole('link')
      .map((link) => link.getAttribute('href'));
    expect(titles).toEqual([`/web/assist/${firstId}`, `/web/assist/${secondId}`]);
    // Short dates in the spec's default format.
    expect(within(list()).getByText('2026-11-29')).toBeTruthy();
    expect(screen.getByText('Ask about your servers, or have a command run on them')).toBeTruthy();
    // No conversation open, no socket.
    expect(sockets.sockets).toHaveLength(0);
  });

  it('highlights the open conversation', async () => {
    stubServer();
    renderAssist(`/web/assist/${secondId}`, socketDeps().deps);
    const open = await screen.findByRole('link', { name: /Failed logins/ });
    expect(open.getAttribute('aria-current')).toBe('page');
    expect(
      screen.getByRole('link', { name: /Disk space/ }).getAttribute('aria-current'),
    ).toBeNull();
  });

  it('New conversation posts an empty body and opens the new conversation', async () => {
    const calls = stubServer();
    const { deps, sockets } = socketDeps();
    const { router } = renderAssist('/web/assist', deps);
    const user = userEvent.setup();
    const buttons = await screen.findAllByRole('button', { name: 'New conversation' });
    await user.click(buttons.at(-1)!);

    await waitFor(() => expect(router.state.location.pathname).toBe(`/web/assist/${newId}`));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { url: conversationsUrl, method: 'POST', body: {} },
    ]);
    // The list is read again, with the new conversation first, and it opens its chat.
    expect(await within(list()).findByRole('link', { name: /New conversation/ })).toBeTruthy();
    await waitFor(() => expect(sockets.sockets).toHaveLength(1));
    expect(sockets.last.url).toContain(`conversation_id=${newId}`);
  });

  it('renames a conversation with its own title path', async () => {
    const calls = stubServer();
    renderAssist('/web/assist', socketDeps().deps);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Options for Failed logins' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rename conversation' });
    const title = within(dialog).getByRole('textbox', { name: 'Title' });
    expect(title.getAttribute('maxlength')).toBe('120');

    await user.clear(title);
    await user.type(title, '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('a title must not be empty')).toBeTruthy();

    await user.clear(title);
    await user.type(title, '  SSH failures  ');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      {
        url: `${conversationsUrl}/${secondId}/title`,
        method: 'POST',
        body: { title: 'SSH failures' },
      },
    ]);
  });

  it('deletes the open conversation after asking, and goes back to /web/assist', async () => {
    const calls = stubServer();
    const { deps, sockets } = socketDeps();
    const { router } = renderAssist(`/web/assist/${firstId}`, deps);
    const user = userEvent.setup();
    await waitFor(() => expect(sockets.sockets).toHaveLength(1));
    accept(sockets.last);
    await user.click(
      await screen.findByRole('button', { name: `Options for ${conversations[0]!.title}` }),
    );
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete conversation' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/web/assist'));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([
      `${conversationsUrl}/${firstId}`,
    ]);
    expect(screen.queryByRole('link', { name: /Disk space/ })).toBeNull();
    // Its chat socket went with it.
    await waitFor(() => expect(sockets.last.closedWith).toEqual({ code: 1000 }));
    expect(screen.getByText('Ask about your servers, or have a command run on them')).toBeTruthy();
  });
});
