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
    // Files in a worker share its modules instead of importing the server afresh each: the
    // project ran in 266 s instead of 470 s on the 2-core CI machine (import was 300 s of the
    // workers' time). So a test leaves nothing process-wide behind: state a module keeps is
    // reset by what set it (padding-pool's unpoolPacketPadding, the CLI kinds table built
    // whole), and this setup file undoes spies, fake timers and process.exitCode after each file.
    isolate: false,
    setupFiles: ['src/testing/worker-state.setup.testkit.ts'],
  },
});
