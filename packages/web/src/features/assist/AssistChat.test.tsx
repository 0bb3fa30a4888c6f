import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  accept,
  firstId,
  message,
  renderAssist,
  sentFrames,
  serverSends,
  socketDeps,
  stubServer,
} from './assist.testkit';

afterEach(() => vi.unstubAllGlobals());

const chatUrl = `wss://proxy.example.com/v1/webapi/sites/localhost/assistant?conversation_id=${firstId}`;
const input = () => screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
const log = () => screen.getByRole('log', { name: 'Messages' });

/** The first conversation open, its socket made (not yet open). */
async function openConversation(stored = {}) {
  const calls = stubServer(stored);
  const { deps, sockets } = socketDeps();
  renderAssist(`/web/assist/${firstId}`, deps);
  await waitFor(() => expect(sockets.sockets).toHaveLength(1));
  await screen.findByRole('log', { name: 'Messages' });
  return { calls, sockets, socket: sockets.last, user: userEvent.setup() };
}

describe('AssistPage: the chat', () => {
  it('sends the message after the token, streams the answer and frees the input when done', async () => {
    const { socket, user } = await openConversation();
    expect(socket.url).toBe(chatUrl);
    expect(input().disabled).toBe(true);
    accept(socket);
    expect(sentFrames(socket)).toEqual([{ token: 'bearer-tok' }]);
    await waitFor(() => expect(input().disabled).toBe(false));

    // Shift+Enter is a new line; Enter sends, trimmed.
    await user.type(input(), 'How full are{Shift>}{Enter}{/Shift}the disks? {Enter}');
    expect(sentFrames(socket)).toEqual([
      { token: 'bearer-tok' },
      { type: 'user_message', text: 'How full are\nthe disks?' },
    ]);
    expect(input().value).toBe('');
    expect(input().disabled).toBe(true);

    serverSends(socket, {
      type: 'message',
      message: message('CHAT_MESSAGE_USER', 'How full are\nthe disks?'),
    });
    expect(within(log()).getByRole('article', { name: 'You' }).textContent).toBe(
      'How full are\nthe disks?',
    );
    serverSends(socket, { type: 'progress', text: 'Looking up your servers' });
    expect(within(log()).getByRole('status').textContent).toBe('Looking up your servers');

    serverSends(socket, { type: 'partial', content: 'Checking' });
    expect(within(log()).getByText('Checking')).toBeTruthy();
    // Each partial is the whole answer so far: it replaces the last.
    serverSends(socket, { type: 'partial', content: 'Checking with `df -h`' });
    expect(within(log()).queryByText('Checking')).toBeNull();
    expect(within(log()).getByText('df -h').tagName).toBe('CODE');

    serverSends(socket, {
      type: 'message',
      message: message('CHAT_MESSAGE_ASSISTANT', 'All disks are under 60%.'),
    });
    expect(within(log()).queryByText(/Checking/)).toBeNull();
    expect(within(log()).getByText('All disks are under 60%.')).toBeTruthy();
    expect(input().disabled).toBe(true);

    serverSends(socket, { type: 'done' });
    expect(input().disabled).toBe(false);
    expect(within(log()).queryByRole('status')).toBeNull();
  });

  it('a title frame renames the conversation in the list', async () => {
    const { socket } = await openConversation();
    accept(socket);
    const conversations = screen.getByRole('navigation', { name: 'Conversations' });
    await within(conversations).findByText('Disk space on web servers');
    serverSends(socket, { type: 'title', title: 'Disks of the web tier' });
    expect(await within(conversations).findByText('Disks of the web tier')).toBeTruthy();
    expect(within(conversations).queryByText('Disk space on web servers')).toBeNull();
  });

  it('drops a frame its schema does not allow, and reads the next', async () => {
    const { socket, user } = await openConversation();
    accept(socket);
    await user.type(input(), 'hello{Enter}');
    const conversations = screen.getByRole('navigation', { name: 'Conversations' });
    await within(conversations).findByText('Disk space on web servers');
    serverSends(
      socket,
      { type: 'partial', content: 42 },
      { type: 'title', title: '' },
      { type: 'message', message: { type: 'NOT_A_TYPE', payload: 'x', created_time: 'now' } },
      { type: 'done', extra: 'ignored' },
    );
    expect(within(log()).queryByText('42')).toBeNull();
    expect(within(log()).queryByText('x')).toBeNull();
    expect(within(conversations).getByText('Disk space on web servers')).toBeTruthy();
    // The well-formed frame after them still counts (a known frame's extra fields are dropped).
    expect(input().disabled).toBe(false);
  });

  it('shows why the server refused the socket, and Reconnect opens another', async () => {
    const { socket, sockets, user } = await openConversation();
    act(() => socket.open());
    serverSends(socket, {
      type: 'create_session_response',
      status: 'error',
      message: 'the assistant is not configured',
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('the assistant is not configured')).toBeTruthy();
    expect(input().disabled).toBe(true);

    await user.click(within(alert).getByRole('button', { name: 'Reconnect' }));
    expect(sockets.sockets).toHaveLength(2);
    accept(sockets.last);
    await waitFor(() => expect(input().disabled).toBe(false));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a lost connection offers Reconnect, which reads the stored messages again', async () => {
    const { socket, sockets, calls, user } = await openConversation();
    accept(socket);
    await user.type(input(), 'uptime?{Enter}');
    socket.serverClose(1006, '');
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('The connection to the assistant closed.')).toBeTruthy();
    // The turn died with the socket: nothing waits for its `done`.
    expect(screen.queryByRole('status')).toBeNull();

    await user.click(within(alert).getByRole('button', { name: 'Reconnect' }));
    accept(sockets.last);
    await waitFor(() => expect(input().disabled).toBe(false));
    const reads = calls.filter((c) => c.url.endsWith(firstId) && c.method === 'GET');
    expect(reads).toHaveLength(2);
  });

  it("shows the socket's own error and lets the user write again", async () => {
    const { socket, user } = await openConversation();
    accept(socket);
    await user.type(input(), 'hello{Enter}');
    serverSends(socket, { type: 'error', message: 'a turn is already running' });
    expect(within(screen.getByRole('alert')).getByText('a turn is already running')).toBeTruthy();
    expect(input().disabled).toBe(false);
  });
});
