import { storageKeys } from './storageKeys';

/**
 * The console's own settings (/web/settings), kept in this browser's localStorage, one key each
 * (lib/storageKeys). Readers call these functions when they need a value, so a change applies to
 * the next terminal opened and the next list rendered. The theme is not here: it has its own
 * mechanism (src/theme), which follows other tabs live.
 */

type Store = Pick<Storage, 'getItem'>;
type WritableStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function read(storage: Store, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null; // storage blocked by privacy settings: defaults apply
  }
}

function write(storage: WritableStore, key: string, value: string | undefined): void {
  try {
    if (value === undefined) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // Full or blocked: the value still applies where the caller keeps it.
  }
}

// --- Terminal font size -------------------------------------------------------------------

export const fontSizeLimits = { min: 8, max: 32, default: 14 } as const;

export function clampFontSize(value: number): number {
  if (!Number.isFinite(value)) return fontSizeLimits.default;
  return Math.min(fontSizeLimits.max, Math.max(fontSizeLimits.min, Math.round(value)));
}

export function readFontSize(storage: Store = localStorage): number {
  const raw = read(storage, storageKeys.terminalFontSize);
  return raw === null ? fontSizeLimits.default : clampFontSize(Number(raw));
}

export function writeFontSize(value: number, storage: WritableStore = localStorage): number {
  const size = clampFontSize(value);
  write(storage, storageKeys.terminalFontSize, String(size));
  return size;
}

// --- Terminal font family -----------------------------------------------------------------

/** Fonts to choose from; each falls back to the browser's monospace font when not installed. */
export const terminalFonts = {
  system: {
    label: 'System monospace',
    css: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  },
  dejavu: { label: 'DejaVu Sans Mono', css: '"DejaVu Sans Mono", monospace' },
  liberation: { label: 'Liberation Mono', css: '"Liberation Mono", monospace' },
  courier: { label: 'Courier New', css: '"Courier New", Courier, monospace' },
  jetbrains: { label: 'JetBrains Mono', css: '"JetBrains Mono", monospace' },
  fira: { label: 'Fira Code', css: '"Fira Code", monospace' },
} as const;
export type TerminalFont = keyof typeof terminalFonts;
export const defaultTerminalFont: TerminalFont = 'system';

const isTerminalFont = (value: unknown): value is TerminalFont =>
  typeof value === 'string' && Object.hasOwn(terminalFonts, value);

export function readTerminalFont(storage: Store = localStorage): TerminalFont {
  const raw = read(storage, storageKeys.terminalFontFamily);
  return isTerminalFont(raw) ? raw : defaultTerminalFont;
}

export function writeTerminalFont(font: TerminalFont, storage: WritableStore = localStorage) {
  write(storage, storageKeys.terminalFontFamily, font);
}

// --- Scrollback ---------------------------------------------------------------------------

export const scrollbackLimits = { min: 0, max: 100_000 } as const;

/** The user's scrollback, or undefined for the cluster's default (GRV_CONFIG ui.scrollbackLines). */
export function readScrollback(storage: Store = localStorage): number | undefined {
  const raw = read(storage, storageKeys.terminalScrollback);
  if (raw === null || raw.trim() === '') return undefined;
  const lines = Number(raw);
  return Number.isInteger(lines) && lines >= scrollbackLimits.min && lines <= scrollbackLimits.max
    ? lines
    : undefined;
}

/** Stores the scrollback; undefined goes back to the cluster's default. */
export function writeScrollback(lines: number | undefined, storage: WritableStore = localStorage) {
  write(storage, storageKeys.terminalScrollback, lines === undefined ? undefined : String(lines));
}

/** What a new terminal (console tab or player) opens with. */
export interface TerminalSettings {
  fontSize: number;
  /** A CSS font-family list. */
  fontFamily: string;
  scrollback: number;
}

export function readTerminalSettings(
  defaultScrollback: number,
  storage: Store = localStorage,
): TerminalSettings {
  return {
    fontSize: readFontSize(storage),
    fontFamily: terminalFonts[readTerminalFont(storage)].css,
    scrollback: readScrollback(storage) ?? defaultScrollback,
  };
}

// --- Date format --------------------------------------------------------------------------

/**
 * The date formats a user may pick over the cluster's (GRV_CONFIG loc.dateFormat, by default
 * spec §9's YYYY-MM-DD): spec §9's first, then common regional ones.
 */
export const dateFormats = ['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'] as const;
export type DateFormat = (typeof dateFormats)[number];

const isDateFormat = (value: unknown): value is DateFormat =>
  (dateFormats as readonly unknown[]).includes(value);

/** The user's date format, or undefined for the cluster's (lib/format says which wins). */
export function readDateFormat(storage: Store = localStorage): DateFormat | undefined {
  const raw = read(storage, storageKeys.dateFormat);
  return isDateFormat(raw) ? raw : undefined;
}

/** Stores the date format; undefined goes back to the cluster's. */
export function writeDateFormat(
  format: DateFormat | undefined,
  storage: WritableStore = localStorage,
) {
  write(storage, storageKeys.dateFormat, format);
}
