import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';
import { testFilesContaining } from '../../scripts/test-files.ts';

/**
 * The server's test files that bound the process's memory while a transfer runs. Their figure is
 * the whole process's, so they run each in a process of its own (vitest.memory.config.ts): in a
 * worker that other files had used, a 64 MiB body through the proxy once measured 34.6 MiB held
 * against a 32 MiB bound (5–16 MiB alone).
 */
export const filesThatMeasureMemory = testFilesContaining(
  new URL('./src/', import.meta.url),
  'process.memoryUsage()',
);

/** A project of the server's tests: `files` to run, and whether files share their worker. */
export function serverTests(
  name: string,
  test: { include: string[]; exclude?: string[]; isolate: boolean },
): UserWorkspaceConfig {
  return defineProject({
    resolve: {
      // Tests run against the contracts' sources, so no build is needed first.
      alias: {
        '@postern/contracts': fileURLToPath(new URL('../contracts/src/index.ts', import.meta.url)),
      },
    },
    test: {
      name,
      ...test,
      testTimeout: 20_000,
      hookTimeout: 30_000,
      // One S3 server (Swift) for the whole run, started when a test first asks for it.
      globalSetup: ['src/testing/swift.global-setup.testkit.ts'],
      setupFiles: ['src/testing/worker-state.setup.testkit.ts'],
    },
  });
}
