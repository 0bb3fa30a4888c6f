import { MantineProvider } from '@mantine/core';
import { render, type RenderOptions } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { appTheme } from '../theme/theme';

/** Mantine's test mode: no transitions and no portals, so modals render in place. */
export function TestTheme({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={appTheme} env="test">
      {children}
    </MantineProvider>
  );
}

export function renderWithTheme(ui: ReactElement, options?: RenderOptions) {
  return render(ui, { wrapper: TestTheme, ...options });
}
