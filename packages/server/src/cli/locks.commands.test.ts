import { describe, expect, it, vi } from 'vitest';
import { buildCli } from '../main.js';
import { cliDataDir } from './cli-harness.testkit.js';
import { locksAdd } from './locks.commands.js';
import { removeResource } from './resources.commands.js';

const { state, run, failure } = cliDataDir();

describe('postern locks', () => {
  it('locks add locks a target at once on the running server; bad targets are refused', async () => {
    let uuid = '';
    const lines = await run(async (ctx, print) => {
      uuid = await locksAdd(ctx, { user: 'mallory', message: 'stolen laptop', ttl: '1h' }, print);
    });
    expect(lines[0]).toMatch(/^Created lock [0-9a-f-]{36} on user mallory, until \S+\.$/);
    await vi.waitFor(() => expect(state.serverLocks.isLocked({ user: 'mallory' })).toBe(true), {
      timeout: 1000,
    });
    expect(await failure((ctx, print) => locksAdd(ctx, { user: 'a', role: 'b' }, print))).toMatch(
      /exactly one target/,
    );
    expect(await failure((ctx, print) => locksAdd(ctx, { user: 'a', ttl: 'soon' }, print))).toMatch(
      /^ttl:/,
    );
    // A bot instance, a device or a request is named by its id: a name would never match.
    expect(
      await failure((ctx, print) => locksAdd(ctx, { botInstance: 'runner-7' }, print)),
    ).toMatch(/^bot_instance: a bot instance is named by its id/);
    const instance = '5b0c4a3e-9a57-4d53-a7c1-2f3b8f0c1a11';
    await run((ctx, print) => locksAdd(ctx, { botInstance: instance }, print));
    await vi.waitFor(
      () => expect(state.serverLocks.isLocked({ botInstance: instance })).toBe(true),
      { timeout: 1000 },
    );
    await run((ctx, print) => removeResource(ctx, `lock/${uuid}`, print));
    await vi.waitFor(() => expect(state.serverLocks.isLocked({ user: 'mallory' })).toBe(false), {
      timeout: 1000,
    });
  });

  it('wires the commands into the binary', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await buildCli().parseAsync([
        'node',
        'postern',
        'locks',
        'add',
        '--login',
        'deploy',
        '--data-dir',
        state.dir,
      ]);
      expect(String(log.mock.calls[0]?.[0])).toMatch(/on login deploy, until it is deleted/);
      await buildCli().parseAsync([
        'node',
        'postern',
        'locks',
        'add',
        '--windows-desktop',
        'build-box',
        '--ttl',
        '1h',
        '--data-dir',
        state.dir,
      ]);
      expect(String(log.mock.calls[1]?.[0])).toMatch(/on windows_desktop build-box, until \S+\.$/);
      const request = '0b9c2f4e-7d1a-4c3b-9e8f-2a6d5c4b3a21';
      await buildCli().parseAsync([
        'node',
        'postern',
        'locks',
        'add',
        '--access-request',
        request,
        '--data-dir',
        state.dir,
      ]);
      expect(String(log.mock.calls[2]?.[0])).toMatch(`on access_request ${request}, until it is`);
      await vi.waitFor(
        () => expect(state.serverLocks.isLocked({ accessRequests: [request] })).toBe(true),
        { timeout: 1000 },
      );
      await buildCli().parseAsync([
        'node',
        'postern',
        'get',
        'locks',
        '--format',
        'json',
        '--data-dir',
        state.dir,
      ]);
      const listed = JSON.parse(String(log.mock.calls[3]?.[0]));
      const targets = listed.map((lock: { spec: { target: object } }) => lock.spec.target);
      expect(targets).toContainEqual({ login: 'deploy' });
      expect(targets).toContainEqual({ windows_desktop: 'build-box' });
      expect(targets).toContainEqual({ access_request: request });
    } finally {
      log.mockRestore();
    }
  });
});
