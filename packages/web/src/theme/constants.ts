/**
 * Business constants of the UI (spec §9). Themes, layouts and components read them from here
 * rather than repeating numbers.
 */
export const space = [0, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80] as const;
export const fontSizes = [10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 34] as const;
export const fontWeights = { light: 300, regular: 400, bold: 600 } as const;

export const layout = {
  sideNavWidth: 240,
  topBarHeight: 56,
  cardWidth: 540,
  popoverMargin: 16,
} as const;

/** Modals at the spec's 1200; what opens from inside one (dropdowns) and notifications above. */
export const zIndex = { modal: 1200, popover: 1300, notification: 1400 } as const;

export const motion = {
  slideAnimationMs: 500,
  /** Spinner delays: none, short, long. */
  spinnerDelayMs: { none: 0, short: 400, long: 600 },
} as const;

/**
 * The purple brand, lightest to darkest. The light theme uses a deep shade and the dark theme a
 * lighter one, so the brand keeps its contrast on either background.
 */
export const brandPalette = [
  '#f1ecff',
  '#ddd3ff',
  '#bfacff',
  '#9f85ff',
  '#8566f2',
  '#7350e6',
  '#6040d8',
  '#512fc9',
  '#4427ab',
  '#361e8c',
] as const;

export const brandShade = { light: 7, dark: 3 } as const;

export type ColorScheme = 'light' | 'dark';
export const defaultColorScheme: ColorScheme = 'light';
