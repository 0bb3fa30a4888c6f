import { useCallback, useState } from 'react';

/**
 * The terminal font size, one setting for every tab, kept in localStorage under
 * `grv_teleport_terminal_font_size` (the console's `grv_teleport_` key prefix, spec §9). It is not
 * in lib/storageKeys because only the console reads it; logout's storage clean-up removes it
 * with the other session keys.
 */
export const fontSizeStorageKey = 'grv_teleport_terminal_font_size';
export const fontSizeLimits = { min: 8, max: 32, default: 14 } as const;

export function clampFontSize(value: number): number {
  if (!Number.isFinite(value)) return fontSizeLimits.default;
  return Math.min(fontSizeLimits.max, Math.max(fontSizeLimits.min, Math.round(value)));
}

export function readFontSize(storage: Pick<Storage, 'getItem'> = localStorage): number {
  const raw = storage.getItem(fontSizeStorageKey);
  return raw === null ? fontSizeLimits.default : clampFontSize(Number(raw));
}

export function useTerminalFontSize(storage: Storage = localStorage) {
  const [fontSize, setState] = useState(() => readFontSize(storage));
  const setFontSize = useCallback(
    (value: number) => {
      const next = clampFontSize(value);
      setState(next);
      try {
        storage.setItem(fontSizeStorageKey, String(next));
      } catch {
        // Storage full or blocked: the size still applies to this page.
      }
    },
    [storage],
  );
  return [fontSize, setFontSize] as const;
}
