import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { databaseFixtures } from '../databases/fixtures';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstId, message, renderAssist, socketDeps, stubServer } from './assist.testkit';

afterEach(() => vi.unstubAllGlobals());

const result = {
  execution_id: 'e1',
  node_id: 'n1',
  node_name: 'web-1',
  session_id: 's-42',
  output: '/dev/sda1  40G  12G\n',
  exit_code: 0,
};

describe('AssistPage: a conversation opened again', () => {
  it('shows each stored message by its type', async () => {
    stubServer({
      [firstId]: [
        message('CHAT_MESSAGE_USER', 'disk <b>usage</b>?'),
        message(
          'CHAT_MESSAGE_ASSISTANT',
          'Run `df -h`:\n\n```sh\ndf -h <script>alert(1)</script>\n```\n\nThat is all.',
        ),
        message('COMMAND_RESULT', result),
        message('COMMAND_RESULT', {
          ...result,
          node_id: 'n2',
          node_name: 'web-2',
          session_id: undefined,
          output: '',
          exit_code: undefined,
          error: 'no route to host',
        }),
        message('COMMAND_RESULT', {
          ...result,
          node_id: 'n3',
          node_name: 'web-3',
          output: '…the end of a long log\n',
          truncated: true,
        }),
        message('COMMAND_RESULT_SUMMARY', {
          execution_id: 'e1',
          command: 'df -h',
          summary: 'web-1 is at **30%**.',
        }),
        message('CHAT_MESSAGE_ERROR', 'the model is not reachable'),
        message('COMMAND', '{"command": "uptime"'),
      ],
    });
    renderAssist(`/web/assist/${firstId}`, socketDeps().deps);
    const log = await screen.findByRole('log', { name: 'Messages' });

    // The user's words and the model's are text, never markup.
    expect(within(log).getByRole('article', { name: 'You' }).textContent).toBe(
      'disk <b>usage</b>?',
    );
    const answer = within(log).getAllByRole('article', { name: 'Assistant' })[0]!;
    expect(within(answer).getByText('df -h', { selector: 'code' })).toBeTruthy();
    const block = answer.querySelector('pre code');
    expect(block?.textContent).toBe('df -h <script>alert(1)</script>');
    expect(within(answer).getByText('That is all.')).toBeTruthy();
    expect(document.querySelector('script, b')).toBeNull();

    const web1 = within(log).getByRole('region', { name: 'Output of web-1' });
    expect(web1.querySelector('pre')?.textContent).toBe('/dev/sda1  40G  12G\n');
    expect(within(web1).getByText('exit code 0')).toBeTruthy();
    expect(
      within(web1).getByRole('link', { name: 'Recording of web-1' }).getAttribute('href'),
    ).toBe('/web/cluster/localhost/session/s-42?recordingType=ssh');
    const web2 = within(log).getByRole('region', { name: 'Output of web-2' });
    expect(within(web2).getByText('no route to host')).toBeTruthy();
    expect(within(web2).queryByRole('link')).toBeNull();
    // Only the end of a long output is kept: the panel says where the rest is.
    const web3 = within(log).getByRole('region', { name: 'Output of web-3' });
    expect(within(web3).getByText(/the recording holds all of it/)).toBeTruthy();
    expect(within(web1).queryByText(/the recording holds all of it/)).toBeNull();

    const summary = within(log).getByRole('article', { name: 'Summary' });
    expect(summary.textContent).toContain('web-1 is at **30%**.');

    const error = within(log).getByRole('alert');
    expect(within(error).getByText('the model is not reachable')).toBeTruthy();

    // A command whose payload does not read is shown as it came, with no card to run.
    expect(within(log).getByText('{"command": "uptime"')).toBeTruthy();
    expect(within(log).queryByRole('button', { name: 'Run' })).toBeNull();
  });

  it("draws a proposed connection as a card with the resource's own Connect", async () => {
    const db = databaseFixtures[0]!;
    stubServer({ [firstId]: [message('CONNECTION', { resource: db })] });
    renderAssist(`/web/assist/${firstId}`, socketDeps().deps);
    const log = await screen.findByRole('log', { name: 'Messages' });
    const card = within(log).getByRole('group', { name: `Database ${db.name}` });
    await userEvent
      .setup()
      .click(within(card).getByRole('button', { name: `Connect to ${db.name}` }));
    const popover = await screen.findByRole('dialog', { name: `Connect to ${db.name}` });
    expect(within(popover).getByText(new RegExp(`postern db connect ${db.name}`))).toBeTruthy();
  });
});
