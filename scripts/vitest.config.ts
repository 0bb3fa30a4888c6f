import { defineConfig } from 'vitest/config';

// Tests of the repository's own tooling: the `npm test` driver and the eslint layer rules.
export default defineConfig({
  test: {
    name: 'scripts',
    include: ['**/*.test.ts'],
    // The first lint loads eslint.config.js and its plugins, which takes seconds on a busy machine.
    testTimeout: 30_000,
  },
});
