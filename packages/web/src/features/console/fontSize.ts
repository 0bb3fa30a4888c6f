import { useCallback, useState } from 'react';
import {
  clampFontSize,
  fontSizeLimits,
  readFontSize,
  writeFontSize,
} from '../../lib/consoleSettings';
import { storageKeys } from '../../lib/storageKeys';

/**
 * The terminal font size, one setting for every tab and the same one Console Settings
 * (/web/settings) shows, kept under `grv_teleport_terminal_font_size` (lib/consoleSettings).
 */
export const fontSizeStorageKey = storageKeys.terminalFontSize;
export { clampFontSize, fontSizeLimits, readFontSize };

export function useTerminalFontSize(storage: Storage = localStorage) {
  const [fontSize, setState] = useState(() => readFontSize(storage));
  const setFontSize = useCallback(
    (value: number) => setState(writeFontSize(value, storage)),
    [storage],
  );
  return [fontSize, setFontSize] as const;
}
