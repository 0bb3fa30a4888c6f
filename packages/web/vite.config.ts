import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { devMetaPlugin } from './tooling/devMetaPlugin.ts';
import { themeBootPlugin } from './tooling/themeBootPlugin.ts';

// `npm run dev` works against a running `postern start`; override with POSTERN_DEV_PROXY.
const devProxy = process.env.POSTERN_DEV_PROXY ?? 'https://localhost:3080';

export default defineConfig({
  // The server serves the console, and lazy chunks load, from /web/.
  base: '/web/',
  plugins: [react(), themeBootPlugin(), devMetaPlugin(devProxy)],
  resolve: {
    // Built from the contracts' sources: no separate contracts build step.
    alias: {
      '@postern/contracts': fileURLToPath(new URL('../contracts/src/index.ts', import.meta.url)),
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // bench/bundle-size.mjs reads the manifest to find what each route loads.
    manifest: true,
    target: 'es2022',
  },
  server: {
    proxy: {
      '/v1': { target: devProxy, secure: false, ws: true },
      '/web/config.js': { target: devProxy, secure: false },
    },
  },
});
