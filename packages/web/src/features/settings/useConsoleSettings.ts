import { useMantineColorScheme } from '@mantine/core';
import { useCallback, useState } from 'react';
import {
  defaultTerminalFont,
  fontSizeLimits,
  readDateFormat,
  readFontSize,
  readScrollback,
  readTerminalFont,
  writeDateFormat,
  writeFontSize,
  writeScrollback,
  writeTerminalFont,
  type DateFormat,
  type TerminalFont,
} from '../../lib/consoleSettings';
import type { ColorScheme } from '../../theme/constants';
import { defaultColorScheme } from '../../theme/constants';

export interface ConsoleSettingsValues {
  colorScheme: ColorScheme;
  terminalFont: TerminalFont;
  fontSize: number;
  /** Undefined: the cluster's default. */
  scrollback: number | undefined;
  /** Undefined: the cluster's (GRV_CONFIG loc formats). */
  dateFormat: DateFormat | undefined;
}

export type ConsoleSettingsChange = Partial<ConsoleSettingsValues>;

function readStored(): Omit<ConsoleSettingsValues, 'colorScheme'> {
  return {
    terminalFont: readTerminalFont(),
    fontSize: readFontSize(),
    scrollback: readScrollback(),
    dateFormat: readDateFormat(),
  };
}

/**
 * The console settings as the page edits them: every change is stored at once (localStorage),
 * and the theme goes through Mantine's colour scheme manager, which stores it and tells other tabs.
 */
export function useConsoleSettings() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const [stored, setStored] = useState(readStored);

  const change = useCallback(
    (next: ConsoleSettingsChange) => {
      if (next.colorScheme) setColorScheme(next.colorScheme);
      if (next.terminalFont) writeTerminalFont(next.terminalFont);
      if (next.fontSize !== undefined) writeFontSize(next.fontSize);
      if ('scrollback' in next) writeScrollback(next.scrollback);
      if ('dateFormat' in next) writeDateFormat(next.dateFormat);
      setStored(readStored());
    },
    [setColorScheme],
  );

  const restoreDefaults = useCallback(
    () =>
      change({
        colorScheme: defaultColorScheme,
        terminalFont: defaultTerminalFont,
        fontSize: fontSizeLimits.default,
        scrollback: undefined,
        dateFormat: undefined,
      }),
    [change],
  );

  const values: ConsoleSettingsValues = {
    ...stored,
    colorScheme: colorScheme === 'dark' ? 'dark' : 'light',
  };
  return { values, change, restoreDefaults };
}
