import { participantModes, type ParticipantMode } from '@postern/contracts';
import { routePath } from '../../app/routes';

/**
 * The console's tabs (reference §2.4 "StoreDocs"): the Servers list and one tab per terminal.
 * A reducer, kept in a context by the console page, so tabs live exactly as long as the page.
 */

export interface Party {
  user: string;
  mode: ParticipantMode;
  /** Its connection dropped, and the session waits for its client to resume it. */
  connectionLost?: boolean;
}

export interface ServersTab {
  kind: 'servers';
  id: typeof serversTabId;
}

/** `resuming`: the connection dropped and the terminal is getting its session back. */
export type TerminalStatus = 'connecting' | 'connected' | 'resuming' | 'disconnected';

export interface TerminalTab {
  kind: 'terminal';
  id: string;
  clusterId: string;
  /** The server's id (from the link or the session data); '' for a join until data arrives. */
  serverId: string;
  /** '' for a join until the session data names it. */
  login: string;
  /** The session id: set for joins from the start, for new sessions once the server says. */
  sid: string;
  /** Opened to join someone's session (not to start one). */
  joined: boolean;
  /** The join mode asked for; the server may pick one when it is missing. */
  mode?: ParticipantMode;
  /** From the Servers list or the session data; '' until known. */
  hostname: string;
  status: TerminalStatus;
  /** Why the session is over, once it is. */
  reason: string;
  /**
   * Over because the proxy went away (it shut down or died), in a tab that started its own
   * session: it may connect again, to a new session on the same server and login.
   */
  reconnectable: boolean;
  /** Which connection of the tab this is: 1, then one more at each reconnect. */
  connection: number;
  parties: Party[];
  /** The session needs moderators: its owner's file transfers wait for their approval. */
  moderated?: boolean;
}

export type ConsoleTab = ServersTab | TerminalTab;

export interface ConsoleState {
  tabs: ConsoleTab[];
  activeId: string;
  /** For tab ids: never reused within a page. */
  seq: number;
}

/** What a console URL (or a click) asks for. */
export type ConsoleTarget =
  | { kind: 'servers' }
  | { kind: 'connect'; clusterId: string; serverId: string; login: string; hostname?: string }
  | { kind: 'join'; clusterId: string; sid: string; mode?: ParticipantMode };

/** The session data a tab shows (from the `s` frame). */
export interface SessionInfo {
  sid: string;
  serverId: string;
  hostname: string;
  login: string;
  parties: Party[];
  moderated?: boolean;
}

export type ConsoleAction =
  /** A click: a connect always opens a new tab; a join reuses the tab of that session. */
  | { type: 'open'; target: ConsoleTarget }
  /** The URL changed (browser navigation): reuse a tab that already shows it. */
  | { type: 'route'; target: ConsoleTarget }
  | { type: 'activate'; id: string }
  | { type: 'close'; id: string }
  | { type: 'connected'; id: string }
  /** The connection dropped; the terminal is resuming the session (docs/protocol.md §6.1). */
  | { type: 'resuming'; id: string }
  | { type: 'session'; id: string; session: SessionInfo }
  /** `proxyGone`: the proxy went away (shut down, died) rather than the session ending. */
  | { type: 'disconnected'; id: string; reason: string; proxyGone?: boolean }
  /** Connect again, in the same tab: a new session on the same server and login. */
  | { type: 'reconnect'; id: string }
  /** Another session on the tab's server and login, in a new tab (as a terminal app's). */
  | { type: 'duplicate'; id: string };

export const serversTabId = 'servers';
const serversTab: ServersTab = { kind: 'servers', id: serversTabId };

export function initConsole(target: ConsoleTarget): ConsoleState {
  return consoleReducer(
    { tabs: [serversTab], activeId: serversTabId, seq: 0 },
    {
      type: 'open',
      target,
    },
  );
}

export function consoleReducer(state: ConsoleState, action: ConsoleAction): ConsoleState {
  switch (action.type) {
    case 'open':
    case 'route':
      return open(state, action.target, action.type === 'route');
    case 'activate':
      return state.tabs.some((t) => t.id === action.id) && state.activeId !== action.id
        ? { ...state, activeId: action.id }
        : state;
    case 'close': {
      const index = state.tabs.findIndex((t) => t.id === action.id);
      const tab = state.tabs[index];
      if (!tab || tab.kind === 'servers') return state;
      const tabs = state.tabs.filter((t) => t.id !== action.id);
      // Closing the active tab shows its left neighbour (the Servers tab at the end).
      const activeId =
        state.activeId === action.id ? (tabs[index - 1] ?? serversTab).id : state.activeId;
      return { ...state, tabs, activeId };
    }
    case 'connected':
      return updateTerminal(state, action.id, (t) =>
        t.status === 'connecting' || t.status === 'resuming' ? { ...t, status: 'connected' } : t,
      );
    case 'resuming':
      return updateTerminal(state, action.id, (t) =>
        t.status === 'connected' ? { ...t, status: 'resuming' } : t,
      );
    case 'session':
      return updateTerminal(state, action.id, (t) => ({
        ...t,
        sid: action.session.sid || t.sid,
        // A session this tab started keeps the server and login it asked for (its URL).
        serverId: t.joined ? action.session.serverId || t.serverId : t.serverId,
        hostname: action.session.hostname || t.hostname,
        login: t.joined ? action.session.login || t.login : t.login,
        parties: action.session.parties,
        moderated: action.session.moderated === true,
      }));
    case 'disconnected':
      return updateTerminal(state, action.id, (t) =>
        t.status === 'disconnected'
          ? t
          : {
              ...t,
              status: 'disconnected',
              reason: action.reason,
              reconnectable: action.proxyGone === true && startsOwnSession(t),
            },
      );
    case 'reconnect':
      return updateTerminal(state, action.id, (t) =>
        t.status === 'disconnected' && t.reconnectable
          ? {
              ...t,
              status: 'connecting',
              reason: '',
              reconnectable: false,
              connection: t.connection + 1,
              // A new session: the old one's id and parties are not its own.
              sid: '',
              parties: [],
            }
          : t,
      );
    case 'duplicate': {
      const tab = state.tabs.find((t) => t.id === action.id);
      if (!tab || !canDuplicate(tab)) return state;
      const { clusterId, serverId, login, hostname } = tab;
      return open(state, { kind: 'connect', clusterId, serverId, login, hostname }, false);
    }
    default:
      return state;
  }
}

function open(state: ConsoleState, target: ConsoleTarget, fromUrl: boolean): ConsoleState {
  if (target.kind === 'servers')
    return consoleReducer(state, { type: 'activate', id: serversTabId });
  const existing = state.tabs.find(
    (t): t is TerminalTab =>
      t.kind === 'terminal' &&
      (target.kind === 'join'
        ? t.sid === target.sid && t.joined
        : fromUrl && !t.joined && t.serverId === target.serverId && t.login === target.login),
  );
  if (existing) return consoleReducer(state, { type: 'activate', id: existing.id });
  const seq = state.seq + 1;
  const base = {
    kind: 'terminal' as const,
    id: `terminal-${seq}`,
    clusterId: target.clusterId,
    status: 'connecting' as const,
    reason: '',
    reconnectable: false,
    connection: 1,
    parties: [],
  };
  const tab: TerminalTab =
    target.kind === 'connect'
      ? {
          ...base,
          serverId: target.serverId,
          login: target.login,
          sid: '',
          joined: false,
          hostname: target.hostname ?? '',
        }
      : {
          ...base,
          serverId: '',
          login: '',
          sid: target.sid,
          joined: true,
          mode: target.mode,
          hostname: '',
        };
  return { tabs: [...state.tabs, tab], activeId: tab.id, seq };
}

function updateTerminal(
  state: ConsoleState,
  id: string,
  change: (tab: TerminalTab) => TerminalTab,
): ConsoleState {
  let changed = false;
  const tabs = state.tabs.map((t) => {
    if (t.id !== id || t.kind !== 'terminal') return t;
    const next = change(t);
    changed ||= next !== t;
    return next;
  });
  return changed ? { ...state, tabs } : state;
}

export function activeTab(state: ConsoleState): ConsoleTab {
  return state.tabs.find((t) => t.id === state.activeId) ?? serversTab;
}

/** A tab's title: 'Servers', `login@hostname`, or what is known before the session data. */
export function tabTitle(tab: ConsoleTab): string {
  if (tab.kind === 'servers') return 'Servers';
  const host = tab.hostname || tab.serverId;
  if (tab.login && host) return `${tab.login}@${host}`;
  return `session ${tab.sid.slice(0, 8)}`;
}

/**
 * A tab that started a session of its own (not a join) on a known server and login: what a
 * reconnect needs. A joined session lived on the proxy that went away, so it cannot be joined
 * again.
 */
const startsOwnSession = (tab: TerminalTab) =>
  !tab.joined && tab.serverId !== '' && tab.login !== '';

/** A tab whose server and login a new session can be started on: one that started its own. */
export const canDuplicate = (tab: ConsoleTab): tab is TerminalTab =>
  tab.kind === 'terminal' && startsOwnSession(tab);

export const isReadOnly = (tab: TerminalTab) =>
  tab.joined && (tab.mode === 'observer' || tab.mode === 'moderator');

/**
 * The URL of a tab, which the address bar follows. A session this tab started keeps its
 * connect URL, so a reload starts a fresh session on the same server rather than trying to
 * join the one that ended with the page; a joined session keeps its session URL and mode.
 */
export function tabUrl(tab: ConsoleTab, clusterId: string): string {
  if (tab.kind === 'servers') return routePath('consoleNodes', { clusterId });
  if (tab.joined) {
    return routePath(
      'consoleSession',
      { clusterId: tab.clusterId, sid: tab.sid },
      tab.mode ? { mode: tab.mode } : undefined,
    );
  }
  return routePath('consoleConnect', {
    clusterId: tab.clusterId,
    serverId: tab.serverId,
    login: tab.login,
  });
}

const isMode = (value: string | null): value is ParticipantMode =>
  (participantModes as readonly string[]).includes(value ?? '');

/** The target of a console route's params (`:serverId/:login`, `:sid` + `?mode=`). */
export function targetOf(
  params: { clusterId: string; serverId?: string; login?: string; sid?: string },
  search: URLSearchParams,
): ConsoleTarget {
  const { clusterId, serverId, login, sid } = params;
  if (sid) {
    const mode = search.get('mode');
    return { kind: 'join', clusterId, sid, ...(isMode(mode) ? { mode } : {}) };
  }
  if (serverId && login) return { kind: 'connect', clusterId, serverId, login };
  return { kind: 'servers' };
}
