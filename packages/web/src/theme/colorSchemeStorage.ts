import type { MantineColorScheme, MantineColorSchemeManager } from '@mantine/core';
import { storageKeys } from '../lib/storageKeys';
import { defaultColorScheme, type ColorScheme } from './constants';

const isColorScheme = (value: unknown): value is ColorScheme =>
  value === 'light' || value === 'dark';

/**
 * Keeps the colour scheme in localStorage under `grv_teleport_ui_theme` ('light' | 'dark') and
 * follows changes made in other tabs through the `storage` event (spec §4). Anything else stored
 * there (or nothing) means the default, light.
 */
export function createColorSchemeStorage(
  storage: Storage = window.localStorage,
  win: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
): MantineColorSchemeManager {
  const key = storageKeys.uiTheme;
  let listener: ((event: StorageEvent) => void) | undefined;

  const read = (fallback: ColorScheme): ColorScheme => {
    try {
      const value = storage.getItem(key);
      return isColorScheme(value) ? value : fallback;
    } catch {
      return fallback;
    }
  };

  return {
    get: (fallback: MantineColorScheme) =>
      read(isColorScheme(fallback) ? fallback : defaultColorScheme),
    set: (value: MantineColorScheme) => {
      try {
        storage.setItem(key, isColorScheme(value) ? value : defaultColorScheme);
      } catch {
        // Not persisted; the scheme still applies to this tab.
      }
    },
    subscribe: (onUpdate) => {
      listener = (event: StorageEvent) => {
        // `key === null` means another tab cleared all storage.
        if (event.key === key || event.key === null) onUpdate(read(defaultColorScheme));
      };
      win.addEventListener('storage', listener);
    },
    unsubscribe: () => {
      if (listener) win.removeEventListener('storage', listener);
      listener = undefined;
    },
    clear: () => storage.removeItem(key),
  };
}
