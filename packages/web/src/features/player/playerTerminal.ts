import '@xterm/xterm/css/xterm.css';
import { Terminal } from '@xterm/xterm';
import { readWindowConfig } from '../../app/clientConfig';
import { readTerminalSettings } from '../../lib/consoleSettings';
import type { PlaybackTerminal } from './playbackTypes';

export interface PlayerTerminal extends PlaybackTerminal {
  dispose(): void;
}

/**
 * A read-only xterm at the recording's own size: never fitted to its container (the page
 * scrolls or centres it instead), since the recorded output was laid out for that size.
 */
export function openPlayerTerminal(container: HTMLElement): PlayerTerminal {
  // The font, its size and the scrollback of Console Settings, like the console's terminals.
  const { fontSize, fontFamily, scrollback } = readTerminalSettings(
    readWindowConfig().ui.scrollbackLines,
  );
  const term = new Terminal({
    fontSize,
    fontFamily,
    disableStdin: true,
    cursorBlink: false,
    scrollback,
    theme: { background: '#1b1b22', foreground: '#e6e6ef', cursor: '#bfacff' },
  });
  term.open(container);
  return {
    // Reset and resize go through the write queue: xterm parses writes later, so doing them
    // at once would apply them before output written just before them.
    reset: () => term.write('\x1bc'),
    resize: (cols, rows) => term.write('', () => term.resize(cols, rows)),
    write: (data) => term.write(data),
    dispose: () => term.dispose(),
  };
}
