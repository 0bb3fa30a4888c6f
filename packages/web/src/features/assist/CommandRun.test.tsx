import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  accept,
  executionId,
  firstId,
  message,
  renderAssist,
  sentFrames,
  serverSends,
  socketDeps,
  stubServer,
} from './assist.testkit';

afterEach(() => vi.unstubAllGlobals());

const command = {
  command: 'df -h',
  login: 'root',
  nodes: [
    { id: 'n1', hostname: 'web-1' },
    { id: 'n2', hostname: 'web-2' },
    { id: 'n3', hostname: 'web-3' },
  ],
  logins: ['root', 'deploy'],
};

/** A conversation whose stored command waits for Run, its chat socket ready. */
async function openCommand() {
  stubServer({ [firstId]: [message('COMMAND', command)] });
  const { deps, sockets } = socketDeps();
  renderAssist(`/web/assist/${firstId}`, deps);
  const card = await screen.findByRole('article', { name: 'Proposed command' });
  accept(sockets.last);
  return { card, sockets, user: userEvent.setup() };
}

const executeParams = (url: string) => {
  const [path, query] = url.split('?');
  return { path, params: JSON.parse(new URLSearchParams(query).get('params') ?? '') };
};

describe('AssistPage: running a proposed command', () => {
  it('runs the command as edited, as the chosen login, on the checked servers only', async () => {
    const { card, sockets, user } = await openCommand();
    const text = within(card).getByRole('textbox', { name: 'Command' });
    expect((text as HTMLTextAreaElement).value).toBe('df -h');
    await user.clear(text);
    await user.type(text, 'df -h /var');
    await user.click(within(card).getByRole('combobox', { name: 'Login' }));
    await user.click(await screen.findByRole('option', { name: 'deploy', hidden: true }));
    await user.click(within(card).getByRole('checkbox', { name: 'web-2' }));
    await user.click(within(card).getByRole('button', { name: 'Run' }));

    expect(sockets.sockets).toHaveLength(2);
    const run = sockets.last;
    expect(executeParams(run.url)).toEqual({
      path: 'wss://proxy.example.com/v1/webapi/command/localhost/execute',
      params: {
        conversation_id: firstId,
        execution_id: executionId,
        command: 'df -h /var',
        login: 'deploy',
        node_ids: ['n1', 'n3'],
      },
    });
    accept(run);
    expect(sentFrames(run)).toEqual([{ token: 'bearer-tok' }]);
    // While it runs, the card cannot start another.
    expect(within(card).getByRole('button', { name: /Run/ }).hasAttribute('disabled')).toBe(true);

    serverSends(
      run,
      { type: 'output', node_id: 'n1', data: 'Filesystem  Size\n' },
      { type: 'output', node_id: 'n3', data: 'df: /var: No such file\n' },
      { type: 'output', node_id: 'n1', data: '/dev/sda1   40G\n' },
    );
    const web1 = within(card).getByRole('region', { name: 'Output of web-1' });
    const web3 = within(card).getByRole('region', { name: 'Output of web-3' });
    expect(within(card).queryByRole('region', { name: 'Output of web-2' })).toBeNull();
    expect(web1.querySelector('pre')?.textContent).toBe('Filesystem  Size\n/dev/sda1   40G\n');
    expect(web3.querySelector('pre')?.textContent).toBe('df: /var: No such file\n');
    expect(within(web1).getByText('running')).toBeTruthy();

    const result = { execution_id: executionId, node_id: 'n1', node_name: 'web-1', output: '' };
    serverSends(
      run,
      { type: 'result', result: { ...result, session_id: 'sess-1', exit_code: 0 } },
      {
        type: 'result',
        result: {
          ...result,
          node_id: 'n3',
          node_name: 'web-3',
          session_id: 'sess-3',
          exit_code: 1,
        },
      },
    );
    expect(within(web1).getByText('exit code 0')).toBeTruthy();
    expect(within(web3).getByText('exit code 1')).toBeTruthy();
    expect(
      within(web1).getByRole('link', { name: 'Recording of web-1' }).getAttribute('href'),
    ).toBe('/web/cluster/localhost/session/sess-1?recordingType=ssh');

    const summary = {
      execution_id: executionId,
      command: 'df -h /var',
      summary: 'web-1 has room; web-3 has no `/var`.',
    };
    serverSends(run, { type: 'summary', message: message('COMMAND_RESULT_SUMMARY', summary) });
    const block = within(card).getByRole('article', { name: 'Summary' });
    expect(within(block).getByText('/var', { selector: 'code' })).toBeTruthy();

    serverSends(run, { type: 'done' });
    await waitFor(() =>
      expect(within(card).getByRole('button', { name: 'Run again' }).hasAttribute('disabled')).toBe(
        false,
      ),
    );
    expect(run.closedWith?.code).toBe(1000);
  });

  it('cannot run on no server', async () => {
    const { card, user } = await openCommand();
    for (const name of ['web-1', 'web-2', 'web-3']) {
      await user.click(within(card).getByRole('checkbox', { name }));
    }
    expect(within(card).getByRole('button', { name: 'Run' }).hasAttribute('disabled')).toBe(true);
  });

  it('shows why the run was refused, or why it stopped', async () => {
    const { card, sockets, user } = await openCommand();
    await user.click(within(card).getByRole('button', { name: 'Run' }));
    act(() => sockets.last.open());
    serverSends(sockets.last, {
      type: 'create_session_response',
      status: 'error',
      message: 'access denied to root on web-2',
    });
    expect(within(card).getByRole('alert').textContent).toContain('access denied to root on web-2');

    await user.click(within(card).getByRole('button', { name: 'Run again' }));
    accept(sockets.last);
    serverSends(sockets.last, { type: 'output', node_id: 'n2', data: 'partial' });
    sockets.last.serverClose(1006, '');
    await waitFor(() =>
      expect(within(card).getByRole('alert').textContent).toContain(
        'The connection closed before the run ended.',
      ),
    );
    const web2 = within(card).getByRole('region', { name: 'Output of web-2' });
    expect(web2.textContent).toContain('partial');
    // The run is over: a server that sent no result will not send one.
    expect(within(web2).getByText('no result')).toBeTruthy();
  });
});
