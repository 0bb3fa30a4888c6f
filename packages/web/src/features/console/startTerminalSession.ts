import {
  apiPaths,
  isNormalSessionEnd,
  type FileTransferRequestFrame,
  type MfaChallenge,
} from '@postern/contracts';
import type { MfaReply } from '../../components/SessionMfaDialog';
import type { SessionInfo, TerminalTab } from './consoleStore';
import type { TerminalDeps } from './terminalDeps';
import type { ModeratedTransfers } from './transfers/moderatedTransfers';
import type { ShortcutAction, TerminalEngine } from './terminalEngine';
import {
  createTraceparent,
  OutputBatcher,
  proxyWentAway,
  socketUrl,
  terminalParams,
  TtyClient,
  type TerminalSize,
} from './tty';

const sgr = { dim: '2', red: '31' } as const;

/**
 * Which socket a terminal talks to. Every one speaks the terminal protocol (docs/protocol.md);
 * they differ in their path and in what their `params` name.
 */
export interface TerminalSocketTarget {
  /** The socket's path, e.g. `apiPaths.terminalConnect(clusterId)`. */
  path: string;
  /** The `params` query value, given the terminal's size when it starts. */
  params: (term: TerminalSize) => object;
  /** Joining someone's session: the server replays it once the terminal says it is ready. */
  join?: boolean;
}

/** What a terminal tells its page about the session. */
export interface TerminalSessionEvents {
  /** Authenticated: keystrokes go through from now on. */
  connected: () => void;
  /** The server's data about the session (sid, host, parties), when it sends some. */
  session?: (session: SessionInfo) => void;
  /**
   * The session is over, and why. `proxyGone`: it ended because the proxy went away (shut down
   * or died), not because the session did, so connecting again may work.
   */
  disconnected: (reason: string, proxyGone?: boolean) => void;
  /**
   * The connection dropped and the session is being resumed over a new one (`connected`
   * follows when it is back, `disconnected` when it cannot be).
   */
  resuming?: () => void;
  /**
   * The session needs a fresh second factor first (require_session_mfa): ask the user, then
   * `answer`, or `cancel` to give the session up. Without it the session cannot start.
   */
  mfaChallenge?: (challenge: MfaChallenge, reply: MfaReply) => void;
}

interface StartOptions {
  target: TerminalSocketTarget;
  deps: TerminalDeps;
  events: TerminalSessionEvents;
  readOnly: boolean;
  /** Joined as a moderator: `t` ends the session. */
  moderator?: boolean;
  onShortcut: (action: ShortcutAction) => void;
  /** The tab's moderated file transfers, fed from this socket (absent: none). */
  moderatedTransfers?: ModeratedTransfers;
}

/** The server terminal's socket for a console tab: a new session on a server, or a join. */
export function serverTerminalTarget(tab: TerminalTab): TerminalSocketTarget {
  return {
    path: apiPaths.terminalConnect(tab.clusterId),
    params: (term) =>
      terminalParams({
        server_id: tab.serverId,
        login: tab.login,
        term,
        sid: tab.sid,
        mode: tab.mode,
      }),
    join: tab.joined,
  };
}

/**
 * Wires one terminal to one socket: output (batched per frame, acknowledged once written),
 * keystrokes, sizes, session data and notices. Returns what ends it all: the socket closes with
 * 1000, which the server reads as this party leaving.
 */
export function startTerminalSession(
  engine: TerminalEngine,
  container: HTMLElement,
  { target, deps, events, readOnly, moderator, onShortcut, moderatedTransfers }: StartOptions,
): () => void {
  engine.mount(container);
  const { cols, rows } = engine.size();
  const term = { w: cols, h: rows };
  const url = socketUrl(deps.origin, target.path, target.params(term), createTraceparent());
  const token = deps.token();
  const client = new TtyClient({
    url,
    token: token ?? '',
    // A resume after a drop presents the bearer as it is then: it may have been renewed.
    currentToken: () => deps.token() ?? undefined,
    createSocket: deps.createSocket,
    readOnly,
    moderator: moderator === true,
    initialSize: term,
    leave: deps.leave,
  });
  const batcher = new OutputBatcher({ sink: engine, acks: client, schedule: deps.schedule });
  // Lines of our own go through the batcher too, so they land in order with the output.
  const line = (text: string, style: string) =>
    batcher.push(`\r\n\x1b[${style}m${text}\x1b[0m\r\n`, 0);

  client.on('open', () => {
    events.connected();
    if (target.join) client.readyToJoin();
  });
  client.on('output', (text, bytes) => batcher.push(text, bytes));
  // Nothing is written into the terminal about it: the missed output resumes the screen exactly.
  client.on('reconnecting', () => events.resuming?.());
  client.on('resumed', () => events.connected());
  client.on('session', (session) =>
    events.session?.({
      sid: session.id,
      serverId: session.server_id,
      hostname: session.server_hostname,
      login: session.login,
      moderated: session.moderated,
      parties: session.parties.map((p) => ({
        user: p.user,
        mode: p.mode,
        ...(p.connection_lost_at ? { connectionLost: true } : {}),
      })),
    }),
  );
  if (moderatedTransfers) {
    const frames = {
      request: (frame: FileTransferRequestFrame) => client.requestFileTransfer(frame),
      decide: (requestId: string, approved: boolean) =>
        client.decideFileTransfer(requestId, approved),
    };
    client.on('session', (session) => moderatedTransfers.attach(frames, session.id));
    client.on('resumed', () => moderatedTransfers.resumed());
    client.on('fileTransfer', (event) => moderatedTransfers.onEvent(event));
    client.on('error', (message) => moderatedTransfers.onServerError(message));
    client.on('close', ({ reason }) => moderatedTransfers.detach(`the session ended: ${reason}`));
  }
  client.on('mfaChallenge', (challenge) => {
    if (!events.mfaChallenge) {
      line('this session needs an MFA check that this page cannot ask for', sgr.red);
      return client.close('MFA check not possible here');
    }
    line('This session needs a fresh MFA check (your roles ask for one per session).', sgr.dim);
    events.mfaChallenge(challenge, {
      answer: (response) => client.answerMfa(response),
      cancel: () => client.close('MFA check cancelled'),
    });
  });
  client.on('notice', (text) => line(text, sgr.dim));
  client.on('error', (text) => line(text, sgr.red));
  client.on('resize', (size) => engine.resize({ cols: size.w, rows: size.h }));
  client.on('close', (info) => {
    const { reason } = info;
    // A program that exited 0 ended as meant: no error colour for it.
    line(`disconnected: ${reason}`, isNormalSessionEnd(reason) ? sgr.dim : sgr.red);
    events.disconnected(reason, proxyWentAway(info));
  });
  engine.onData((data) => client.send(data));
  engine.onResize((size) => client.resize({ w: size.cols, h: size.rows }));
  engine.onShortcut(onShortcut);

  // A page closed while resuming has no socket whose close would tell the server: give the
  // session up instead (an open socket's close, 1001, tells it already).
  const onPageHide = () => {
    if (client.state === 'reconnecting') client.close('the page was closed');
  };
  globalThis.addEventListener?.('pagehide', onPageHide);

  if (token) {
    client.connect();
  } else {
    events.disconnected('not signed in');
  }
  return () => {
    globalThis.removeEventListener?.('pagehide', onPageHide);
    client.close();
    batcher.dispose();
    engine.dispose();
  };
}
