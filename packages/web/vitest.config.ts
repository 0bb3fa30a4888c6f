import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Tests run against the contracts' sources, so no build is needed first.
    alias: {
      '@postern/contracts': fileURLToPath(new URL('../contracts/src/index.ts', import.meta.url)),
    },
  },
  test: {
    name: 'web',
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    // Above the 5 s that findBy* may wait for a lazy page's first transform.
    testTimeout: 15_000,
    // Dates render in the browser's zone; tests pin it so expectations are stable.
    env: { TZ: 'UTC' },
  },
});
