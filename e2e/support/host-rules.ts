import type { LaunchOptions } from '@playwright/test';

/**
 * A worker-scoped `launchOptions` fixture for `test.extend`: this worker's Chromium resolves
 * `host` and its subdomains, and only those, to 127.0.0.1.
 */
export function resolvingToLoopback(
  host: string,
): [
  (
    args: { launchOptions: LaunchOptions },
    use: (options: LaunchOptions) => Promise<void>,
  ) => Promise<void>,
  { scope: 'worker' },
] {
  return [
    async ({ launchOptions }, use) => {
      const rules = `MAP ${host} 127.0.0.1, MAP *.${host} 127.0.0.1`;
      await use({
        ...launchOptions,
        args: [...(launchOptions.args ?? []), `--host-resolver-rules=${rules}`],
      });
    },
    { scope: 'worker' },
  ];
}
