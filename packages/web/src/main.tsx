import '@mantine/core/styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { readWindowConfig } from './app/clientConfig';
import { createAppRouter } from './app/router';
import { setClusterDateFormats } from './lib/format';
import { storageKeys } from './lib/storageKeys';
import { startTelemetryIfEnabled } from './telemetry/loader';
import { applyStoredColorScheme } from './theme/applyColorScheme';

// The built page already ran this from a blocking <head> script; repeating it is harmless and
// covers pages served without that script (the dev server).
applyStoredColorScheme(storageKeys.uiTheme);

const config = readWindowConfig();
// Dates are formatted outside React too (list models), so the cluster's formats are set once here.
setClusterDateFormats(config.loc);
const router = createAppRouter();
const container = document.getElementById('app');
if (!container) throw new Error('missing #app element');

createRoot(container).render(
  <StrictMode>
    <App router={router} config={config} />
  </StrictMode>,
);

void startTelemetryIfEnabled({
  storage: localStorage,
  currentPath: () => router.state.location.pathname,
  onPathChange: (listener) => router.subscribe((state) => listener(state.location.pathname)),
});
