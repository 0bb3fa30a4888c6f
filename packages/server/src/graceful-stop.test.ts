import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { openBackend } from './backend/index.js';
import { resolveConfig } from './config/config.js';
import { openAuditStore } from './modules/audit/index.js';
import { parseRoleYaml } from './access-control/rbac/role.yaml.js';
import { DirRecordingStore } from './modules/recordings/recording-store.js';
import { RolesStore } from './access-control/roles/roles.store.js';
import { UsersStore } from './identity/users/users.store.js';
import { WebSessionService } from './identity/web-sessions/web-sessions.service.js';
import { WebSessionStore } from './identity/web-sessions/web-sessions.store.js';
import { sessionCookieName } from './http/request-identity.js';
import { ClusterCa } from './ssh/ca.service.js';
import { openSshClient, type OpenSshClientSetup } from './testing/openssh-client.testkit.js';
import { openTerminal } from './testing/terminal-client.testkit.js';

// SIGTERM to a real `postern start` (built: npx tsc -b packages/server): the browser terminal is
// told why (1001 "going away"), so is an `ssh` client through the proxy, the recording is sealed
// complete, the end event is written, and the process exits 0 within shutdown_grace.
const bin = fileURLToPath(new URL('../bin/postern.js', import.meta.url));
const graceMs = 10_000;
let dataDir: string | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
let ssh: OpenSshClientSetup | undefined;

afterAll(async () => {
  await ssh?.remove();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** A role, a user and a signed-in web session, written to the storage before the server starts. */
async function prepare(configFile: string) {
  const config = resolveConfig({ dataDir, config: configFile });
  const backend = await openBackend(config.storage);
  const login = userInfo().username;
  try {
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
    const ca = await ClusterCa.loadOrCreate(backend, 'stop-test');
    return { config, login, session, ca };
  } finally {
    await backend.close();
  }
}

describe('postern start on SIGTERM', () => {
  it('ends live terminals with 1001 and the reason, seals recordings and writes the end events', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'postern-stop-'));
    const configFile = path.join(dataDir, 'postern.yaml');
    await writeFile(
      configFile,
      `ssh_service: {listen_addr: 127.0.0.1:0}\nshutdown_grace: ${graceMs / 1000}s\n`,
    );
    const { config, login, session, ca } = await prepare(configFile);
    const args = [
      ...[bin, 'start', '--config', configFile, '--data-dir', dataDir],
      ...['--web-addr', '127.0.0.1:0', '--ssh-addr', '127.0.0.1:0', '--insecure-no-tls'],
      ...['--cluster-name', 'stop-test', '--log-format', 'json'],
    ];
    const started = spawn(process.execPath, args);
    child = started;
    const exited = new Promise<number | null>((resolve) => started.on('exit', resolve));
    const [webAddr, sshPort] = await new Promise<[string, number]>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`not serving:\n${out}`)), 30_000);
      started.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const serving = /"webAddr":"([^"]+)".*"sshAddr":"[^"]*:(\d+)"/.exec(out);
        if (serving) {
          clearTimeout(timer);
          resolve([serving[1]!, Number(serving[2])]);
        }
      });
    });
    ssh = await openSshClient({
      ca,
      user: 'alice',
      roles: ['here'],
      logins: [login],
      proxyPort: sshPort,
    });
    const sshClient = ssh.spawn('ssh', ['-tt', `${login}@${hostname()}`]);
    let sshSaw = '';
    sshClient.stdout.on('data', (d: Buffer) => (sshSaw += d.toString()));
    sshClient.stderr.on('data', (d: Buffer) => (sshSaw += d.toString()));
    const sshExited = new Promise<number | null>((resolve) => sshClient.on('exit', resolve));
    for (let i = 0; i < 400 && !/[#$] $/m.test(sshSaw); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sshSaw).toMatch(/[#$] $/m);

    const client = await openTerminal({
      baseUrl: `http://${webAddr}`,
      headers: {
        cookie: `${sessionCookieName}=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      },
      params: { term: { w: 80, h: 24 }, server_id: hostname(), login } as never,
    });
    expect(client.response.status).toBe('ok');
    client.type('echo "alive=$((3*3))"\r');
    await client.waitForOutput('alive=9', 20_000);
    const frame = client.frames.find((f) => f.type === T.sessionData);
    const sid = (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;

    const signalled = Date.now();
    started.kill('SIGTERM');
    const closed = await client.closed;
    expect(closed).toEqual({ code: 1001, reason: 'the proxy is shutting down' });
    expect(await sshExited).not.toBe(0);
    expect(sshSaw).toContain('the proxy is shutting down');
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(graceMs);

    const index = await new DirRecordingStore(config.recordings.dir).readIndex(sid);
    expect(index).toMatchObject({ sealed: true, incomplete: false, participants: ['alice'] });
    const audit = await openAuditStore(config.audit, 'stop-test');
    try {
      const { events } = await audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 60_000),
        limit: 1000,
      });
      expect(events.find((e) => e.code === 'T2004I' && e.sid === sid)).toMatchObject({
        reason: 'the proxy is shutting down',
        user: 'alice',
      });
    } finally {
      await audit.close();
    }
  }, 60_000);
});
