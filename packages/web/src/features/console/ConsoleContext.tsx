import { createContext, useContext, type Dispatch } from 'react';
import type { SocketOrigin, Scheduler, WebSocketLike } from './tty';
import type { ConsoleAction, ConsoleState } from './consoleStore';
import type { TerminalEngineLoader } from './terminalEngine';
import type { TransferDeps } from './transfers/useFileTransfers';

/** The outside world a terminal tab talks to; tests replace it with fakes. */
export interface ConsoleDeps {
  loadEngine: TerminalEngineLoader;
  /** The socket implementation; the browser's WebSocket when left out. */
  createSocket?: (url: string) => WebSocketLike;
  /** The bearer token for the socket's first frame. */
  token: () => string | undefined;
  origin: SocketOrigin;
  /** When batched output is written (an animation frame in the browser). */
  schedule: Scheduler;
  clipboard: Pick<Clipboard, 'readText' | 'writeText'> | undefined;
  /** How file transfers reach the server; the browser's fetch and XMLHttpRequest when left out. */
  transfers?: TransferDeps;
}

export interface ConsoleContextValue {
  state: ConsoleState;
  dispatch: Dispatch<ConsoleAction>;
  clusterId: string;
  fontSize: number;
  setFontSize: (px: number) => void;
  deps: ConsoleDeps;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole needs the console page around it');
  return value;
}
