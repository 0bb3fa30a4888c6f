import { createContext, useContext, type Dispatch } from 'react';
import type { ConsoleAction, ConsoleState } from './consoleStore';
import type { TerminalDeps } from './terminalDeps';
import type { TransferDeps } from './transfers/useFileTransfers';

/** The outside world a terminal tab talks to; tests replace it with fakes. */
export interface ConsoleDeps extends TerminalDeps {
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
