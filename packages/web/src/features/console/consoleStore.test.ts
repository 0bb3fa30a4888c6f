import { describe, expect, it } from 'vitest';
import {
  activeTab,
  consoleReducer,
  initConsole,
  tabTitle,
  tabUrl,
  targetOf,
  type ConsoleState,
  type TerminalTab,
} from './consoleStore';

const connect = { kind: 'connect', clusterId: 'root', serverId: 'node-1', login: 'root' } as const;
const join = { kind: 'join', clusterId: 'root', sid: 'sid-1234567890', mode: 'observer' } as const;

const terminals = (s: ConsoleState) =>
  s.tabs.filter((t): t is TerminalTab => t.kind === 'terminal');

describe('console tab store', () => {
  it('starts with the Servers tab, plus the tab the URL names', () => {
    const plain = initConsole({ kind: 'servers' });
    expect(plain.tabs.map((t) => t.id)).toEqual(['servers']);
    expect(plain.activeId).toBe('servers');

    const state = initConsole(connect);
    expect(state.tabs.map((t) => t.kind)).toEqual(['servers', 'terminal']);
    expect(activeTab(state)).toMatchObject({
      kind: 'terminal',
      serverId: 'node-1',
      login: 'root',
      joined: false,
      status: 'connecting',
    });
  });

  it('a click opens a new tab every time; a URL reuses the tab showing it', () => {
    let state = initConsole(connect);
    state = consoleReducer(state, { type: 'open', target: connect });
    expect(terminals(state)).toHaveLength(2);
    expect(state.activeId).toBe('terminal-2');
    state = consoleReducer(state, { type: 'activate', id: 'servers' });
    state = consoleReducer(state, { type: 'route', target: connect });
    expect(terminals(state)).toHaveLength(2);
    expect(state.activeId).toBe('terminal-1');
  });

  it('joining a session already open in a tab goes to that tab', () => {
    let state = initConsole(join);
    state = consoleReducer(state, { type: 'activate', id: 'servers' });
    state = consoleReducer(state, { type: 'open', target: join });
    expect(terminals(state)).toHaveLength(1);
    expect(activeTab(state)).toMatchObject({ sid: join.sid, joined: true, mode: 'observer' });
  });

  it('closing the active tab shows its left neighbour; the Servers tab stays', () => {
    let state = initConsole(connect);
    state = consoleReducer(state, { type: 'open', target: connect });
    state = consoleReducer(state, { type: 'open', target: connect });
    state = consoleReducer(state, { type: 'activate', id: 'terminal-2' });
    state = consoleReducer(state, { type: 'close', id: 'terminal-2' });
    expect(state.tabs.map((t) => t.id)).toEqual(['servers', 'terminal-1', 'terminal-3']);
    expect(state.activeId).toBe('terminal-1');
    state = consoleReducer(state, { type: 'close', id: 'terminal-3' });
    expect(state.activeId).toBe('terminal-1'); // closing another tab keeps the active one
    state = consoleReducer(state, { type: 'close', id: 'terminal-1' });
    expect(state.activeId).toBe('servers');
    expect(consoleReducer(state, { type: 'close', id: 'servers' })).toBe(state);
  });

  it('session data names the tab; the end of a session is kept with its reason', () => {
    let state = initConsole(join);
    expect(tabTitle(activeTab(state))).toBe('session sid-1234');
    state = consoleReducer(state, { type: 'connected', id: 'terminal-1' });
    state = consoleReducer(state, {
      type: 'session',
      id: 'terminal-1',
      session: {
        sid: join.sid,
        serverId: 'node-9',
        hostname: 'db-1',
        login: 'root',
        parties: [{ user: 'alice', mode: 'peer' }],
      },
    });
    const tab = activeTab(state) as TerminalTab;
    expect(tabTitle(tab)).toBe('root@db-1');
    expect(tab).toMatchObject({ status: 'connected', parties: [{ user: 'alice', mode: 'peer' }] });
    state = consoleReducer(state, {
      type: 'disconnected',
      id: 'terminal-1',
      reason: 'session ended',
    });
    state = consoleReducer(state, { type: 'disconnected', id: 'terminal-1', reason: 'later' });
    expect(activeTab(state)).toMatchObject({ status: 'disconnected', reason: 'session ended' });
    // Unknown tabs (closed already) change nothing.
    expect(consoleReducer(state, { type: 'connected', id: 'gone' })).toBe(state);
  });

  it('a session this tab started keeps the server and login it asked for', () => {
    let state = initConsole({ ...connect, hostname: 'web-1' });
    state = consoleReducer(state, {
      type: 'session',
      id: 'terminal-1',
      session: { sid: 'new-sid', serverId: 'uuid-1', hostname: 'web-1', login: 'x', parties: [] },
    });
    expect(activeTab(state)).toMatchObject({ serverId: 'node-1', login: 'root', sid: 'new-sid' });
    expect(tabTitle(activeTab(state))).toBe('root@web-1');
  });
});

describe('reconnecting a tab', () => {
  const started = () => {
    let state = initConsole({ ...connect, hostname: 'web-1' });
    state = consoleReducer(state, { type: 'connected', id: 'terminal-1' });
    return consoleReducer(state, {
      type: 'session',
      id: 'terminal-1',
      session: {
        sid: 'old-sid',
        serverId: 'uuid-1',
        hostname: 'web-1',
        login: 'root',
        parties: [{ user: 'alice', mode: 'peer' }],
      },
    });
  };

  it('a tab whose proxy went away may reconnect: a new session on the same server and login', () => {
    let state = consoleReducer(started(), {
      type: 'disconnected',
      id: 'terminal-1',
      reason: 'connection closed (code 1006)',
      proxyGone: true,
    });
    expect(activeTab(state)).toMatchObject({ status: 'disconnected', reconnectable: true });
    state = consoleReducer(state, { type: 'reconnect', id: 'terminal-1' });
    expect(activeTab(state)).toMatchObject({
      id: 'terminal-1',
      status: 'connecting',
      reason: '',
      reconnectable: false,
      connection: 2,
      serverId: 'node-1',
      login: 'root',
      hostname: 'web-1',
      sid: '',
      parties: [],
    });
    expect(tabUrl(activeTab(state), 'root')).toBe('/web/cluster/root/console/node/node-1/root');
    // Once connecting, a second click changes nothing.
    expect(consoleReducer(state, { type: 'reconnect', id: 'terminal-1' })).toBe(state);
  });

  it('a session that ended, or a joined one, does not reconnect', () => {
    const ended = consoleReducer(started(), {
      type: 'disconnected',
      id: 'terminal-1',
      reason: 'exited with code 0',
    });
    expect(activeTab(ended)).toMatchObject({ reconnectable: false });
    expect(consoleReducer(ended, { type: 'reconnect', id: 'terminal-1' })).toBe(ended);

    const joined = consoleReducer(initConsole(join), {
      type: 'disconnected',
      id: 'terminal-1',
      reason: 'the proxy is shutting down',
      proxyGone: true,
    });
    expect(activeTab(joined)).toMatchObject({ status: 'disconnected', reconnectable: false });
    expect(consoleReducer(joined, { type: 'reconnect', id: 'terminal-1' })).toBe(joined);
  });
});

describe('duplicating a tab', () => {
  it('opens another session on the tab’s server and login, in a new active tab', () => {
    let state = consoleReducer(initConsole(connect), {
      type: 'session',
      id: 'terminal-1',
      session: { sid: 's-1', serverId: 'node-1', hostname: 'db-1', login: 'root', parties: [] },
    });
    state = consoleReducer(state, { type: 'activate', id: 'servers' });
    state = consoleReducer(state, { type: 'duplicate', id: 'terminal-1' });
    expect(terminals(state)).toHaveLength(2);
    expect(activeTab(state)).toMatchObject({
      id: 'terminal-2',
      serverId: 'node-1',
      login: 'root',
      hostname: 'db-1',
      joined: false,
      sid: '',
      status: 'connecting',
    });
    // Even from a tab whose session ended: the server and login are still known.
    const ended = consoleReducer(state, { type: 'disconnected', id: 'terminal-1', reason: 'x' });
    expect(terminals(consoleReducer(ended, { type: 'duplicate', id: 'terminal-1' }))).toHaveLength(
      3,
    );
  });

  it('does not duplicate a joined session, the Servers tab or a tab that is gone', () => {
    const joined = initConsole(join);
    expect(consoleReducer(joined, { type: 'duplicate', id: 'terminal-1' })).toBe(joined);
    expect(consoleReducer(joined, { type: 'duplicate', id: 'servers' })).toBe(joined);
    expect(consoleReducer(joined, { type: 'duplicate', id: 'terminal-9' })).toBe(joined);
  });
});

describe('console URLs', () => {
  it('each tab has its URL', () => {
    const state = initConsole(connect);
    expect(tabUrl(state.tabs[0]!, 'root')).toBe('/web/cluster/root/console/nodes');
    expect(tabUrl(state.tabs[1]!, 'root')).toBe('/web/cluster/root/console/node/node-1/root');
    expect(tabUrl(activeTab(initConsole(join)), 'root')).toBe(
      '/web/cluster/root/console/session/sid-1234567890?mode=observer',
    );
  });

  it('route params name a target; an unknown mode is left to the server', () => {
    const none = new URLSearchParams();
    expect(targetOf({ clusterId: 'root' }, none)).toEqual({ kind: 'servers' });
    expect(targetOf({ clusterId: 'root', serverId: 'n', login: 'l' }, none)).toEqual({
      kind: 'connect',
      clusterId: 'root',
      serverId: 'n',
      login: 'l',
    });
    expect(targetOf({ clusterId: 'root', sid: 's' }, new URLSearchParams('mode=peer'))).toEqual({
      kind: 'join',
      clusterId: 'root',
      sid: 's',
      mode: 'peer',
    });
    expect(targetOf({ clusterId: 'root', sid: 's' }, new URLSearchParams('mode=root'))).toEqual({
      kind: 'join',
      clusterId: 'root',
      sid: 's',
    });
  });
});
