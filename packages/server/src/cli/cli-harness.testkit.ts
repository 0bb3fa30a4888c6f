import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { SqliteBackend } from '../backend/sqlite.js';
import { ConfigError } from '../config/config.js';
import { ApiError } from '../errors.js';
import { LockWatcher } from '../access-control/locks/lock-watcher.js';
import { openAdminContext, type AdminContext } from './admin-context.js';
import type { Print } from './table.js';

export type Command = (ctx: AdminContext, print: Print) => Promise<unknown>;

/**
 * A temp data dir with a SQLite backend open on it that stands in for a running `postern start`
 * (it watches locks, as a server does), and helpers that run admin commands the way `main` does.
 */
export function cliDataDir() {
  const state = {} as { dir: string; server: SqliteBackend; serverLocks: LockWatcher };
  beforeAll(async () => {
    state.dir = await mkdtemp(path.join(tmpdir(), 'postern-cli-'));
    state.server = new SqliteBackend(path.join(state.dir, 'postern.db'), { pollIntervalMs: 50 });
    state.serverLocks = new LockWatcher(state.server, Date.now);
    await state.serverLocks.start();
  });
  afterAll(async () => {
    await state.serverLocks.close();
    await state.server.close();
    await rm(state.dir, { recursive: true, force: true });
  });

  /** Opens the storage, runs the command, closes; returns the lines it printed. */
  async function run(command: Command): Promise<string[]> {
    const lines: string[] = [];
    const ctx = await openAdminContext({ dataDir: state.dir });
    try {
      await command(ctx, (line) => lines.push(line));
      return lines;
    } finally {
      await ctx.close();
    }
  }

  /** The message a command fails with; main prints it on one line and exits with code 2. */
  async function failure(command: Command): Promise<string> {
    const error = await run(command).then(
      () => new Error('the command succeeded'),
      (caught: unknown) => caught as Error,
    );
    const badInput =
      error instanceof ConfigError || (error instanceof ApiError && error.statusCode < 500);
    expect(badInput, String(error)).toBe(true);
    expect(error.message).not.toContain('\n');
    return error.message;
  }

  async function file(name: string, text: string): Promise<string> {
    const at = path.join(state.dir, name);
    await writeFile(at, text);
    return at;
  }

  return { state, run, failure, file };
}
