import { createJoinTokenRequestSchema } from '@postern/contracts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { runAgent, type RunningAgent } from '../../../agent/agent.js';
import { parseDesktopFlags } from '../../../agent/desktop-flags.js';
import { recordingLog } from '../../../agent/tunnel-proxy.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openDesktopSocket } from '../../../testing/desktop-socket.testkit.js';
import { startXvnc, type RunningXvnc } from '../../../testing/xvnc.testkit.js';
import { TestRfbClient } from '../rfb/rfb-client.testkit.js';

// A desktop reached only from an agent's host: `postern agent --desktop name=vnc://…` joins with
// a WindowsDesktop token, reports the desktop on its heartbeat, signs in to the real Xvnc with a
// password that stays in its file, and the browser's session crosses the agent's tunnel.

const password = 'inside99';
let xvnc: RunningXvnc;
let app: TestApp;
let agent: RunningAgent;
let dir: string;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-agent-desktop-'));
  xvnc = await startXvnc({ password, width: 300, height: 180 });
  app = await createTestApp();
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'inside-desktops' },
      spec: {
        allow: { windows_desktop_labels: { site: 'inside' }, windows_desktop_logins: ['ops'] },
      },
    }),
    hostActor('test'),
  );
  ({ port } = await app.listenOnLoopback());
  const token = await app.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['WindowsDesktop'] }),
    hostActor('test'),
  );
  const passwordFile = path.join(dir, 'vnc-pass');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  agent = await runAgent({
    proxy: `http://127.0.0.1:${port}`,
    token: token.token,
    labels: { site: 'inside' },
    dataDir: path.join(dir, 'agent'),
    insecure: false,
    desktops: parseDesktopFlags([
      `inside-box=vnc://127.0.0.1:${xvnc.port}?password_file=${passwordFile}`,
    ]),
    log: recordingLog(),
  });
  await vi.waitFor(() => expect(app.services.desktops.get('inside-box')).toBeDefined(), {
    timeout: 10_000,
  });
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await app?.close();
  await xvnc?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('lists the desktop from the heartbeat, with no password in storage', () => {
  const desktop = app.services.desktops.get('inside-box')!;
  expect(desktop).toMatchObject({
    source: 'agent',
    agentId: agent.nodeId,
    metadata: { labels: { site: 'inside' } },
    spec: { protocol: 'vnc', addr: `127.0.0.1:${xvnc.port}` },
  });
  expect(JSON.stringify(desktop)).not.toContain(password);
});

it('opens the desktop through the tunnel, the agent signing in to it', async () => {
  const headers = await app.signIn(['inside-desktops'], 'olga');
  const { answer, socket, rfb } = await openDesktopSocket({
    wsBase: `ws://127.0.0.1:${port}`,
    headers,
    name: 'inside-box',
    username: 'ops',
  });
  expect(answer.status).toBe('ok');
  const client = await TestRfbClient.connect(rfb);
  expect(client.handshake.serverInit).toMatchObject({ width: 300, height: 180 });
  await client.until(() => client.updates > 0, 'the first update');
  expect(app.services.hub.list().find((t) => t.kind === 'desktop')).toMatchObject({
    owner: 'olga',
    serverId: 'inside-box',
  });
  socket.close();
});
