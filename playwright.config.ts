import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests: a real `postern start` (built binary, temporary data dir, free port) and
 * Debian's Chromium. Test tools may not download browsers here, so the executable is fixed.
 *
 * The tests run Debian's `chromium-headless-shell`: the same Blink and V8 as `chromium`, without
 * the browser's own UI. Full `chromium` in headless mode starts a WebUI renderer for its toolbar
 * with every window, and the suite took 27 minutes with it on the 2-core CI machine against 20
 * with the shell (same 119 tests, same machine, back to back). `CHROMIUM_PATH` picks another.
 */
export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/support/global-setup.ts',
  fullyParallel: true,
  workers: 2,
  // Generous: two workers, their servers and two Chromiums share two cores in CI. Speed is measured
  // by bench/, not here; a timeout only says that something never happened.
  // Waits are long for the same reason: CI has seen a new terminal tab take more than 10 s to draw.
  timeout: 90_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['json', { outputFile: '.test-output/e2e.json' }]],
  // The apps specs run their own TLS proxy and browser beside the shared ones. As the last project
  // they are queued after the rest; they do not depend on them, so one failure elsewhere hides nothing.
  projects: [
    { name: 'console', testIgnore: /apps(-[\w-]+)?\.spec\.ts$/ },
    { name: 'apps', testMatch: /apps(-[\w-]+)?\.spec\.ts$/ },
  ],
  use: {
    baseURL: process.env.POSTERN_E2E_URL,
    ignoreHTTPSErrors: true,
    // A failed test keeps its trace with DOM snapshots, not a screencast: the screencast made
    // every page draw its frames for the recorder, a quarter of the suite's CPU.
    trace: { mode: 'retain-on-failure', screenshots: false },
    // Menus and modals open without their animation (the console honours the preference), so a
    // click never lands on a dropdown still sliding into place on a busy machine.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
