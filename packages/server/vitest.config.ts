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
    name: 'server',
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // One S3 server (Swift) for the whole run, started when a test first asks for it.
    globalSetup: ['src/testing/swift.global-setup.testkit.ts'],
  },
});
