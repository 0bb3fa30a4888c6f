import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRoleYaml } from './access-control/rbac/role.yaml.js';
import { RolesStore } from './access-control/roles/roles.store.js';
import { openBackend } from './backend/index.js';
import { formatHostPort } from './config/address.js';
import { resolveConfig } from './config/config.js';
import { sessionCookieName } from './http/request-identity.js';
import { UsersStore } from './identity/users/users.store.js';
import { WebSessionService } from './identity/web-sessions/web-sessions.service.js';
import { WebSessionStore } from './identity/web-sessions/web-sessions.store.js';
import { parseExposition, sampleValue } from './modules/metrics/exposition.testkit.js';
import { proxyShuttingDown } from './modules/sessions/session-hub.js';
import { startServer } from './start.js';
import { openTerminal } from './testing/terminal-client.testkit.js';

// `postern start` in this process, stopped as SIGTERM stops it: it drains first (readyz 503, new
// sessions refused, live ones going on) for shutdown_drain, then ends the rest within the grace.
let dataDir: string | undefined;
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('postern start draining on SIGTERM', () => {
  it('turns readyz to 503 and refuses new terminals while an open one goes on, then stops', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'postern-drain-'));
    const configFile = path.join(dataDir, 'postern.yaml');
    await writeFile(
      configFile,
      [
        'ssh_service: {listen_addr: 127.0.0.1:0}',
        'shutdown_grace: 10s',
        'shutdown_drain: 3s',
        'metrics_addr: 127.0.0.1:0',
        'log: {level: silent}',
        '',
      ].join('\n'),
    );
    const config = resolveConfig({
      config: configFile,
      dataDir,
      webAddr: '127.0.0.1:0',
      sshAddr: '127.0.0.1:0',
      insecureNoTls: true,
      clusterName: 'drain-test',
    });
    const login = userInfo().username;
    const backend = await openBackend(config.storage);
    const yaml = JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'here' },
      spec: { allow: { node_labels: { '*': '*' }, logins: [login] } },
    });
    await new RolesStore(backend).create(parseRoleYaml(yaml).role);
    await new UsersStore(backend).create({
      kind: 'user',
      version: 'v2',
      metadata: { name: 'alice' },
      spec: { roles: ['here'], traits: { logins: [] }, authType: 'local', createdAt: '' },
      status: {},
    });
    const session = await new WebSessionService(new WebSessionStore(backend)).create('alice', [
      'here',
    ]);
    await backend.close();

    const server = await startServer(config);
    const baseUrl = `http://127.0.0.1:${server.port}`;
    const metricsAddr = server.app.context.addresses.of('metrics');
    expect(metricsAddr?.port).toBeGreaterThan(0);
    const terminal = () =>
      openTerminal({
        baseUrl,
        headers: {
          cookie: `${sessionCookieName}=${session.id}`,
          authorization: `Bearer ${session.bearerToken}`,
        },
        params: { term: { w: 80, h: 24 }, server_id: hostname(), login } as never,
      });
    let stopped: Promise<boolean> | undefined;
    try {
      const open = await terminal();
      expect(open.response.status).toBe('ok');
      open.type('echo "before=$((2*3))"\r');
      await open.waitForOutput('before=6', 20_000);

      const scraped = await fetch(`http://${formatHostPort(metricsAddr!)}/metrics`);
      const samples = parseExposition(await scraped.text());
      expect(sampleValue(samples, 'postern_sessions_active', { kind: 'ssh' })).toBe(1);
      expect(sampleValue(samples, 'postern_recording_bytes_total')).toBeGreaterThan(0);
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);

      stopped = server.stop('SIGTERM');
      // At once, while the web listener still answers: the load balancer learns first.
      const draining = await fetch(`${baseUrl}/readyz`);
      expect(draining.status).toBe(503);
      expect(await draining.json()).toMatchObject({
        status: 'not_ready',
        checks: { drain: 'draining' },
        not_ready: ['drain'],
      });
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);

      const refused = await terminal();
      await refused.closed;
      expect(refused.frames.find((f) => f.type === T.error)?.payload).toBe(proxyShuttingDown);

      open.type('echo "during=$((4*5))"\r');
      await open.waitForOutput('during=20', 2_000);

      expect(await stopped).toBe(true);
      expect(await open.closed).toEqual({ code: 1001, reason: 'the proxy is shutting down' });
      await expect(fetch(`${baseUrl}/readyz`)).rejects.toThrow();
    } finally {
      await (stopped ?? server.stop('test'));
    }
  }, 60_000);
});
