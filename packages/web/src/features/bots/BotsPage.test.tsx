import type { BotJson, BotListResponse } from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useSearchParams } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { BotsPage } from './BotsPage';
import { botJoinCommand } from './joinCommand';

afterEach(() => vi.unstubAllGlobals());

const deployer: BotJson = {
  name: 'deployer',
  user: 'bot-deployer',
  roles: ['access'],
  logins: ['deploy'],
  createdAt: '2026-11-29T08:00:00.000Z',
  joinMethod: 'token',
  instances: [
    {
      id: '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11',
      generation: 4,
      joinedAt: '2026-11-29T08:01:00.000Z',
      renewedAt: '2026-11-29T09:01:00.000Z',
      certExpires: '2026-11-29T10:01:00.000Z',
      addr: '127.0.0.1',
    },
  ],
  tokens: [],
};
const page = (items: BotJson[], startKey = ''): BotListResponse => ({
  items,
  startKey,
  totalCount: items.length,
});
const botsUrl = '/v1/webapi/sites/localhost/machine-id/bot';
const issued = { token: '0123456789abcdef0123456789abcdef', expires: '2026-11-29T10:00:00.000Z' };

/** The server as the page calls it: the list, and the answers to writes. */
function stubServer(list: BotListResponse) {
  const calls: { url: string; method: string; body?: unknown }[] = [];
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
    if (method === 'GET' && url.startsWith(`${botsUrl}?`)) return jsonResponse(list);
    if (method === 'POST' && url === botsUrl) {
      const bot = { ...deployer, name: 'ci', user: 'bot-ci' };
      // A bot CI jobs join with their ID token comes without a token.
      return jsonResponse(String(init.body).includes('"oidc"') ? { bot } : { bot, token: issued });
    }
    if (method === 'POST' && url === `${botsUrl}/deployer/token`) return jsonResponse(issued);
    // A change answers with the bot as it is now; the list is read again after it.
    if (method === 'PUT') return jsonResponse(list.items[0]);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', fetchStub);
  return calls;
}

const editor = () => userContextFixture(aclWith({ bots: 'all' }));

/** The page as an editor sees it, with Create Bot open and a name and a role filled in. */
async function openCreateBot(name: string, role: string) {
  const calls = stubServer(page([deployer]));
  renderPage(<BotsPage />, { context: editor() });
  const user = userEvent.setup();
  await user.click(await screen.findByRole('button', { name: 'Create Bot' }));
  const dialog = await screen.findByRole('dialog', { name: 'Create Bot' });
  await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), name);
  await user.type(within(dialog).getByRole('combobox', { name: 'Roles' }), `${role}{Enter}`);
  return { calls, user, dialog };
}

describe('BotsPage', () => {
  it('lists bots with their roles and running copies, a page at a time', async () => {
    const calls = stubServer(page([deployer], 'deployer'));
    renderPage(<BotsPage />, { context: editor() });
    const row = (await screen.findByText('deployer')).closest('tr') as HTMLElement;
    expect(within(row).getByText('acts as bot-deployer')).toBeTruthy();
    expect(within(row).getByText('access')).toBeTruthy();
    expect(within(row).getByText('1')).toBeTruthy();
    expect(within(row).getByText(/last renewed/)).toBeTruthy();
    expect(calls[0]?.url).toBe(`${botsUrl}?limit=15`);
    expect(screen.getByRole('button', { name: 'Next page' }).hasAttribute('disabled')).toBe(false);
  });

  it('creates a bot and shows the command its first copy joins with, once', async () => {
    const { calls, user, dialog } = await openCreateBot('ci', 'access');
    await user.type(within(dialog).getByRole('combobox', { name: 'Logins' }), 'builder{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));

    const join = await screen.findByRole('dialog', { name: 'Join token' });
    const command = within(join).getByLabelText('Join command');
    expect(command.textContent).toContain(`--token ${issued.token}`);
    expect(command.textContent).not.toContain('--insecure');
    await user.click(within(join).getByRole('checkbox'));
    expect(command.textContent).toContain('--insecure');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      name: 'ci',
      roles: ['access'],
      logins: ['builder'],
      token_ttl: '1h',
    });
  });

  it('creates a bot that CI jobs join with their ID token, and shows the job’s command', async () => {
    const { calls, user, dialog } = await openCreateBot('ci', 'access');
    await user.click(within(dialog).getByText("A CI job's ID token"));
    await user.type(
      within(dialog).getByRole('textbox', { name: 'Issuer' }),
      'https://token.actions.githubusercontent.com',
    );
    const claims = within(dialog).getByRole('combobox', { name: 'Claims' });
    await user.type(claims, 'repository{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText(/'repository' is not name=value/)).toBeTruthy();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    await user.type(claims, '{Backspace}repository=acme/deploy{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    const join = await screen.findByRole('dialog', { name: 'Join from a CI job' });
    expect(within(join).getByLabelText('Join command').textContent).toContain(
      '--bot ci --oidc-token-env POSTERN_ID_TOKEN',
    );
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({
      name: 'ci',
      roles: ['access'],
      logins: [],
      oidc: {
        issuer: 'https://token.actions.githubusercontent.com',
        // The proxy's host name unless changed: here, the test page's.
        audience: 'localhost',
        claims: { repository: 'acme/deploy' },
      },
    });
  });

  it('edits a CI bot: its rule stays unless changed, and goes when it joins with tokens again', async () => {
    const rule = {
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'proxy.example.com',
      claims: { repository: 'acme/deploy' },
    };
    const gha: BotJson = {
      ...deployer,
      name: 'gha',
      user: 'bot-gha',
      joinMethod: 'oidc',
      oidc: rule,
    };
    const calls = stubServer(page([gha]));
    renderPage(<BotsPage />, { context: editor() });
    const user = userEvent.setup();
    const editBot = async () => {
      const row = (await screen.findByText('gha')).closest('tr') as HTMLElement;
      await user.click(within(row).getByRole('button', { name: 'Options' }));
      await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
      return screen.findByRole('dialog', { name: 'Edit Bot gha' });
    };
    const sent = () => calls.filter((call) => call.method === 'PUT').map((call) => call.body);

    let dialog = await editBot();
    expect(within(dialog).getByText('repository=acme/deploy')).toBeTruthy();
    await user.type(within(dialog).getByRole('combobox', { name: 'Logins' }), 'ci{Enter}');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent()).toEqual([{ roles: ['access'], logins: ['deploy', 'ci'] }]));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    dialog = await editBot();
    await user.click(within(dialog).getByText('A join token'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent()).toHaveLength(2));
    expect(sent()[1]).toEqual({ roles: ['access'], logins: ['deploy'], oidc: null });
  });

  it('checks the form with the API’s rules before sending anything', async () => {
    const calls = stubServer(page([deployer]));
    renderPage(<BotsPage />, { context: editor() });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Create Bot' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create Bot' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Not A Name');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(await within(dialog).findByText(/lower-case letters/)).toBeTruthy();
    expect(within(dialog).getByText('a bot needs at least one role')).toBeTruthy();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it('gives an existing bot another join token from its row', async () => {
    const calls = stubServer(page([deployer]));
    renderPage(<BotsPage />, { context: editor() });
    const user = userEvent.setup();
    const row = (await screen.findByText('deployer')).closest('tr') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Options' }));
    await user.click(await screen.findByRole('menuitem', { name: 'New join token' }));
    const join = await screen.findByRole('dialog', { name: 'Join token' });
    expect(within(join).getByText(/A new join token for bot/)).toBeTruthy();
    await waitFor(() =>
      expect(calls).toContainEqual({ url: `${botsUrl}/deployer/token`, method: 'POST', body: {} }),
    );
  });

  it('locks a bot through Create New Lock on its user, for whoever may create locks', async () => {
    const user = await openOptionsAsLocker();
    await user.click(await screen.findByRole('menuitem', { name: 'Lock' }));
    expect(await screen.findByText('lock user bot-deployer')).toBeTruthy();
  });

  it('locks one running copy alone, from its row in Running copies', async () => {
    const user = await openOptionsAsLocker();
    await user.click(await screen.findByRole('menuitem', { name: 'Running copies and tokens' }));
    const dialog = await screen.findByRole('dialog', { name: 'Bot deployer' });
    const instance = deployer.instances[0]!.id;
    await user.click(within(dialog).getByRole('link', { name: `Lock instance ${instance}` }));
    expect(await screen.findByText(`lock bot_instance ${instance}`)).toBeTruthy();
  });

  it('offers only what the ACL allows', async () => {
    stubServer(page([deployer]));
    renderPage(<BotsPage />, { context: userContextFixture(aclWith({ bots: ['list', 'read'] })) });
    const user = userEvent.setup();
    const row = (await screen.findByText('deployer')).closest('tr') as HTMLElement;
    expect(screen.queryByRole('button', { name: 'Create Bot' })).toBeNull();
    await user.click(within(row).getByRole('button', { name: 'Options' }));
    expect(await screen.findByRole('menuitem', { name: 'Running copies and tokens' })).toBeTruthy();
    for (const action of ['New join token', 'Edit', 'Lock', 'Delete']) {
      expect(screen.queryByRole('menuitem', { name: action })).toBeNull();
    }
    await user.click(screen.getByRole('menuitem', { name: 'Running copies and tokens' }));
    const dialog = await screen.findByRole('dialog', { name: 'Bot deployer' });
    expect(within(dialog).getByText(deployer.instances[0]!.id)).toBeTruthy();
    expect(within(dialog).queryByRole('link', { name: /^Lock instance/ })).toBeNull();
  });
});

/** The page for someone who may create locks, with deployer's Options menu open. */
async function openOptionsAsLocker() {
  stubServer(page([deployer]));
  renderPage(<BotsPage />, {
    path: '/web/bots',
    context: userContextFixture(aclWith({ bots: 'all', lock: 'all' })),
    routes: [{ path: '/web/locks/new', element: <NewLockTarget /> }],
  });
  const user = userEvent.setup();
  const row = (await screen.findByText('deployer')).closest('tr') as HTMLElement;
  await user.click(within(row).getByRole('button', { name: 'Options' }));
  return user;
}

/** Stands in for Create New Lock: says what its link asked for. */
function NewLockTarget() {
  const [search] = useSearchParams();
  return <p>{`lock ${search.get('kind')} ${search.get('name')}`}</p>;
}

describe('botJoinCommand', () => {
  const token = 'abc';
  it('names an HTTPS proxy by host:port and a plain one by its URL', () => {
    const https = { addr: 'proxy.example.com:3080', origin: 'https://proxy.example.com:3080' };
    expect(botJoinCommand({ join: { token }, proxy: https, selfSigned: false })).toBe(
      'postern bot start --proxy proxy.example.com:3080 --token abc --destination /var/lib/postern-bot',
    );
    const http = { addr: '127.0.0.1:3080', origin: 'http://127.0.0.1:3080' };
    expect(botJoinCommand({ join: { token }, proxy: http, selfSigned: true })).toBe(
      'postern bot start --proxy http://127.0.0.1:3080 --token abc --destination /var/lib/postern-bot --insecure',
    );
    expect(botJoinCommand({ join: { bot: 'gha' }, proxy: https, selfSigned: false })).toBe(
      'postern bot start --proxy proxy.example.com:3080 --bot gha --oidc-token-env POSTERN_ID_TOKEN --destination ./postern-bot --oneshot',
    );
  });
});
