import { createTheme, type MantineColorsTuple } from '@mantine/core';
import { brandPalette, brandShade, fontSizes, fontWeights, space, zIndex } from './constants';

const px = (n: number) => `${n}px`;

/**
 * One Mantine theme serves both colour schemes: Mantine swaps light and dark values through CSS
 * variables, and `primaryShade` picks the deeper brand shade in light and the lighter in dark.
 */
export const appTheme = createTheme({
  // Someone whose system asks for less motion gets menus, modals and popovers without their
  // opening and closing animations (WCAG 2.3.3); everyone else keeps them.
  respectReducedMotion: true,
  primaryColor: 'brand',
  primaryShade: brandShade,
  colors: { brand: [...brandPalette] as unknown as MantineColorsTuple },
  spacing: {
    xs: px(space[1]),
    sm: px(space[2]),
    md: px(space[3]),
    lg: px(space[4]),
    xl: px(space[5]),
  },
  fontSizes: {
    xs: px(fontSizes[1]),
    sm: px(fontSizes[2]),
    md: px(fontSizes[3]),
    lg: px(fontSizes[4]),
    xl: px(fontSizes[5]),
  },
  fontWeights: {
    light: String(fontWeights.light),
    regular: String(fontWeights.regular),
    medium: String(fontWeights.bold),
    bold: String(fontWeights.bold),
  },
  headings: {
    fontWeight: String(fontWeights.bold),
    sizes: {
      h1: { fontSize: px(fontSizes[10]) },
      h2: { fontSize: px(fontSizes[8]) },
      h3: { fontSize: px(fontSizes[6]) },
      h4: { fontSize: px(fontSizes[5]) },
      h5: { fontSize: px(fontSizes[4]) },
      h6: { fontSize: px(fontSizes[3]) },
    },
  },
  // Plain defaults instead of `Modal.extend`, so the theme does not pull Modal into every chunk.
  // Dropdowns (select, tags, autocomplete) and popovers open above modals and drawers.
  components: {
    Modal: { defaultProps: { zIndex: zIndex.modal } },
    Drawer: { defaultProps: { zIndex: zIndex.modal } },
    Combobox: { defaultProps: { zIndex: zIndex.popover } },
    Popover: { defaultProps: { zIndex: zIndex.popover } },
  },
});
