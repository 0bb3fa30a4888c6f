import { MantineProvider } from '@mantine/core';
import type { ClientConfig } from '@postern/contracts';
import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { createColorSchemeStorage } from '../theme/colorSchemeStorage';
import { defaultColorScheme } from '../theme/constants';
import { appTheme } from '../theme/theme';
import { ClientConfigContext } from './clientConfig';
import type { createAppRouter } from './router';

interface Props {
  router: ReturnType<typeof createAppRouter>;
  config: ClientConfig;
}

/** Providers every route needs: theme (with its stored colour scheme) and client config. */
export function App({ router, config }: Props) {
  const [colorSchemeManager] = useState(() => createColorSchemeStorage());
  return (
    <MantineProvider
      theme={appTheme}
      colorSchemeManager={colorSchemeManager}
      defaultColorScheme={defaultColorScheme}
    >
      <ClientConfigContext.Provider value={config}>
        <RouterProvider router={router} />
      </ClientConfigContext.Provider>
    </MantineProvider>
  );
}
