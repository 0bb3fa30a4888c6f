import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One `vitest run` at the root runs every package's unit and integration tests.
export default defineConfig({
  test: {
    projects: [
      'packages/contracts',
      'packages/server/vitest.config.ts',
      'packages/server/vitest.memory.config.ts',
      'packages/web/vitest.config.ts',
      'packages/web/vitest.mocks.config.ts',
      'scripts',
    ],
    // At least two test files at a time. vitest's default (cores - 1) runs one on the 2-core CI
    // machine, yet most files wait on real servers (sshd, PostgreSQL, xrdp) more than they
    // compute, so a second overlaps their waits: the whole run took 7.4 minutes instead of 11
    // there (three: 6.8). The files share nothing that would clash: PostgreSQL tests take a
    // schema each, servers listen on free loopback ports, and the one Swift is shared by design.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
