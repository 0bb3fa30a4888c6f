import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { shellQuote } from './install-script.js';

// What the install-*.sh tests share: a listening app whose public address is where the scripts
// fetch from, join tokens of the roles a test needs, and the script run as an admin runs it.

const run = promisify(execFile);
const postern = fileURLToPath(new URL('../../../../bin/postern.js', import.meta.url));

type JoinRole = 'App' | 'Db' | 'WindowsDesktop';

export interface InstallScriptWorld {
  app: TestApp;
  /** Where the scripts point agents: the app's plain-HTTP loopback address. */
  baseUrl: string;
  /** A new join token for these agent roles. */
  token(roles: JoinRole[]): Promise<string>;
  /** GET the script at `path` (its query dropped) with this query, as a browser or curl would. */
  fetchScript(path: string, query: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** Starts the world before the file's tests and stops it after them. */
export function installScriptWorld(): InstallScriptWorld {
  const world = {} as InstallScriptWorld;
  beforeAll(async () => {
    const app = await createTestApp();
    const { port } = await app.listenOnLoopback();
    app.config.publicAddr = { host: '127.0.0.1', port };
    app.config.insecureNoTls = true;
    Object.assign(world, {
      app,
      baseUrl: `http://127.0.0.1:${port}`,
      token: async (roles: JoinRole[]) =>
        (
          await app.services.joinTokens.create(
            { roles, join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
            hostActor('cli:test'),
          )
        ).token,
      fetchScript: (path: string, query: Record<string, string>) =>
        app.server.inject({
          method: 'GET',
          url: `${path.split('?')[0]}?${new URLSearchParams(query)}`,
        }),
    });
  });
  afterAll(async () => {
    await world.app?.close();
  });
  return world;
}

/**
 * A refused script: 400, never cached, and when run it fails (exit 1) saying `why` on stderr,
 * so an admin piping it into bash sees the reason instead of a half-installed agent.
 */
export async function expectRefusedScript(res: LightMyRequestResponse, why: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toContain(why);
  const ran = await run('sh', ['-c', res.body]).catch(
    (error: { code: number; stderr: string }) => error,
  );
  expect(ran).toMatchObject({ code: 1, stderr: expect.stringContaining(why) });
}

/**
 * `curl -fsS URL | bash` with the real built postern, the agent kept in the foreground in
 * `dataDir`; `served` is retried on the agent's output until it passes, and the agent is stopped
 * after, whatever happened.
 */
export async function runInstalledAgent(
  url: string,
  dataDir: string,
  served: (output: string) => void,
): Promise<void> {
  const child = spawn('bash', ['-c', `curl -fsS ${shellQuote(url)} | bash`], {
    env: {
      ...process.env,
      POSTERN_BIN: postern,
      POSTERN_DATA_DIR: dataDir,
      POSTERN_FOREGROUND: '1',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await vi.waitFor(() => served(output), { timeout: 20_000, interval: 200 });
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
