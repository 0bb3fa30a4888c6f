import { isNormalSessionEnd } from '@postern/contracts';
import type { Dispatch } from 'react';
import type { ConsoleDeps } from './ConsoleContext';
import type { ConsoleAction, TerminalTab } from './consoleStore';
import type { ShortcutAction, TerminalEngine } from './terminalEngine';
import { createTraceparent, OutputBatcher, terminalUrl, TtyClient } from './tty';

const sgr = { dim: '2', red: '31' } as const;

interface StartOptions {
  tab: TerminalTab;
  deps: ConsoleDeps;
  dispatch: Dispatch<ConsoleAction>;
  readOnly: boolean;
  onShortcut: (action: ShortcutAction) => void;
}

/**
 * Wires one terminal to one socket: output (batched per frame, acknowledged once written),
 * keystrokes, sizes, session data and notices. Returns what ends it all: the socket closes with
 * 1000, which the server reads as this party leaving.
 */
export function startTerminalSession(
  engine: TerminalEngine,
  container: HTMLElement,
  { tab, deps, dispatch, readOnly, onShortcut }: StartOptions,
): () => void {
  engine.mount(container);
  const { cols, rows } = engine.size();
  const term = { w: cols, h: rows };
  const url = terminalUrl(
    deps.origin,
    tab.clusterId,
    {
      server_id: tab.serverId,
      login: tab.login,
      term,
      ...(tab.sid ? { sid: tab.sid } : {}),
      ...(tab.mode ? { mode: tab.mode } : {}),
    },
    createTraceparent(),
  );
  const token = deps.token();
  const client = new TtyClient({
    url,
    token: token ?? '',
    createSocket: deps.createSocket,
    readOnly,
    initialSize: term,
  });
  const batcher = new OutputBatcher({ sink: engine, acks: client, schedule: deps.schedule });
  // Lines of our own go through the batcher too, so they land in order with the output.
  const line = (text: string, style: string) =>
    batcher.push(`\r\n\x1b[${style}m${text}\x1b[0m\r\n`, 0);

  client.on('open', () => {
    dispatch({ type: 'connected', id: tab.id });
    if (tab.joined) client.readyToJoin();
  });
  client.on('output', (text, bytes) => batcher.push(text, bytes));
  client.on('session', (session) =>
    dispatch({
      type: 'session',
      id: tab.id,
      session: {
        sid: session.id,
        serverId: session.server_id,
        hostname: session.server_hostname,
        login: session.login,
        parties: session.parties.map((p) => ({ user: p.user, mode: p.mode })),
      },
    }),
  );
  client.on('notice', (text) => line(text, sgr.dim));
  client.on('error', (text) => line(text, sgr.red));
  client.on('resize', (size) => engine.resize({ cols: size.w, rows: size.h }));
  client.on('close', ({ reason }) => {
    // A program that exited 0 ended as meant: no error colour for it.
    line(`disconnected: ${reason}`, isNormalSessionEnd(reason) ? sgr.dim : sgr.red);
    dispatch({ type: 'disconnected', id: tab.id, reason });
  });
  engine.onData((data) => client.send(data));
  engine.onResize((size) => client.resize({ w: size.cols, h: size.rows }));
  engine.onShortcut(onShortcut);

  if (token) {
    client.connect();
  } else {
    dispatch({ type: 'disconnected', id: tab.id, reason: 'not signed in' });
  }
  return () => {
    client.close();
    batcher.dispose();
    engine.dispose();
  };
}
