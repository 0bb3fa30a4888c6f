import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';
import { testFilesContaining } from '../../scripts/test-files.ts';

/**
 * The console's test files that replace a module with `vi.mock`. A mock must not reach another
 * file through a module cache they share, so these run isolated (vitest.mocks.config.ts) and
 * the rest share their worker's modules (vitest.config.ts): the console's tests took about 80 s
 * that way instead of 190 s on the 2-core CI machine, where each file imported React, Mantine
 * and the pages afresh.
 */
export const filesThatMock = testFilesContaining(new URL('./src/', import.meta.url), 'vi.mock(');

/** A project of the console's tests: `files` to run, and whether files share modules. */
export function consoleTests(
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
      environment: 'jsdom',
      ...test,
      setupFiles: ['src/test/setup.ts'],
      // Above the 5 s that findBy* may wait for a lazy page's first transform.
      testTimeout: 15_000,
      // Dates render in the browser's zone; tests pin it so expectations are stable.
      env: { TZ: 'UTC' },
    },
  });
}
