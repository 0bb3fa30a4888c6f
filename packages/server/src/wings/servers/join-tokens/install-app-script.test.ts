import { scriptPaths } from '@postern/contracts';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectRefusedScript,
  installScriptWorld,
  runInstalledAgent,
} from './install-script.testkit.js';

// install-app.sh as an admin runs it: `curl … | bash` on a host that reaches the app, which
// starts the real `postern agent --app` (the built binary) in the foreground.

const world = installScriptWorld();
let appToken: string;
let upstream: Server;
let uri: string;

beforeAll(async () => {
  upstream = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  uri = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  appToken = await world.token(['App']);
});
afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

const fetchScript = (token: string, query: Record<string, string>) =>
  world.fetchScript(scriptPaths.installApp(token, { name: '', uri: '' }), query);

describe('GET /scripts/:token/install-app.sh', () => {
  it('refuses an unknown token with a script that fails, and a bad name or uri saying which', async () => {
    const unknown = await fetchScript('f'.repeat(32), { name: 'grafana', uri });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('this install link is not valid');
    await expectRefusedScript(
      await fetchScript(appToken, { name: 'Bad_Name', uri }),
      'name: app names are DNS labels',
    );
    await expectRefusedScript(
      await fetchScript(appToken, { name: 'grafana', uri: "http://x/'$(id)'" }),
      'uri: only URL characters',
    );
  });

  it('runs a real agent that serves the app through its tunnel, joined with an App token', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-install-app-'));
    const url = `${world.baseUrl}${scriptPaths.installApp(appToken, { name: 'notes', uri })}`;
    try {
      await runInstalledAgent(url, dataDir, (output) => {
        expect(world.app.services.apps.get('notes'), output).toMatchObject({ source: 'agent' });
        expect(output).toContain(`postern: serving notes (${uri}) through ${world.baseUrl}`);
      });
      expect(world.app.services.apps.get('notes')?.spec.uri).toBe(uri);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
