import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { wings } from '../index.js';
import { startWingListeners } from '../run-listeners.js';
import type { RunningListener } from '../wing.js';
import { echoStatusPath } from './echo.routes.js';
import { addEchoCommands, echoOnce, exampleWing } from './index.js';

// The example wing is the "Adding an access protocol" walk-through of docs/ARCHITECTURE.md: one
// folder, added beside the registry's wings the way its one registration line would add it.
let app: TestApp;
let listeners: RunningListener[];

beforeAll(async () => {
  app = await createTestApp({ wings: [...wings, exampleWing] });
  // Loopback and a free port for the SSH proxy; this host is not served as a server here.
  app.config.sshAddr = { host: '127.0.0.1', port: 0 };
  app.config.sshService.enabled = false;
  listeners = await startWingListeners(app, () => undefined);
});

afterAll(async () => {
  for (const listener of listeners) await listener.stop();
  await app.close();
});

describe('a wing added beside the registry', () => {
  it('serves its route behind the access guard: 401, 403, then 200 for the verb', async () => {
    const anonymous = await app.server.inject({ method: 'GET', url: echoStatusPath });
    expect(anonymous.statusCode).toBe(401);
    const access = await app.signIn(['access'], 'bob');
    const denied = await app.server.inject({ method: 'GET', url: echoStatusPath, headers: access });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toMatch(/read on connectionDiagnostic/);
    const editor = await app.signIn(['editor']);
    const ok = await app.server.inject({ method: 'GET', url: echoStatusPath, headers: editor });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      connections: 0,
    });
  });

  it('runs its listener and reports the address it bound under its name', async () => {
    const bound = app.context.addresses.of('echo');
    expect(bound?.port).toBeGreaterThan(0);
    expect(await echoOnce(bound!.port, 'over the wing')).toBe('over the wing');
    // The servers wing's listeners ran from the same loop: the SSH proxy reported its port,
    // ssh_service (off in this config) did not start.
    expect(app.context.addresses.of('ssh')?.port).toBeGreaterThan(0);
    expect(listeners).toHaveLength(3);
  });

  it('names its resource kind beside the servers wing', async () => {
    const kinds = app.context.kinds().map((kind) => kind.kind);
    expect(kinds).toEqual(['node', 'app', 'db', 'kube_cluster', 'windows_desktop', 'echo']);
    const echo = app.context.kinds().find((kind) => kind.kind === 'echo')!;
    expect(echo.count()).toBeGreaterThan(0);
  });

  it('adds its CLI command to the program', async () => {
    const program = new Command('postern').exitOverride();
    addEchoCommands(program);
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const port = String(app.context.addresses.of('echo')!.port);
      await program.parseAsync(['echo-check', port], { from: 'user' });
      expect(printed).toHaveBeenCalledWith('hello');
    } finally {
      printed.mockRestore();
    }
  });

  it("keeps each wing's services apart and the registry free of the example", () => {
    expect(wings.map((wing) => wing.name)).toEqual([
      'servers',
      'apps',
      'databases',
      'kubernetes',
      'desktops',
    ]);
    expect(app.wings.map(({ wing }) => wing.name)).toEqual([
      'servers',
      'apps',
      'databases',
      'kubernetes',
      'desktops',
      'example',
    ]);
    const names = app.wings.map(({ services }) => Object.keys(services));
    const all = names.flat();
    expect(new Set(all).size).toBe(all.length);
  });
});
