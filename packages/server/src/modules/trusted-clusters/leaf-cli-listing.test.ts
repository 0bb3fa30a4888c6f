import { apiPaths } from '@postern/contracts';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { ls } from '../../cli/login/session-commands.js';
import { signRequest } from '../../ssh/signed-request.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../testing/terminal-fixture.testkit.js';
import { connectLeaf } from './trusted-clusters.testkit.js';

/**
 * `postern ls --cluster leaf` after `postern login` on the root: the CLI signs the read with its
 * certificate, the root checks it as on its own routes and forwards it through the leaf's
 * tunnel with the leaf session the leaf grants, so the leaf's rules decide what is listed.
 */
describe('a leaf cluster’s servers from the command line', () => {
  let root: TestApp;
  let rootPort: number;
  let leaf: TerminalFixture;
  const homes: string[] = [];

  beforeAll(async () => {
    root = await createTestApp({ clusterName: 'root' });
    rootPort = (await root.listenOnLoopback()).port;
    leaf = await startTerminalFixture({ clusterName: 'leaf', heartbeatIntervalMs: 300 });
    await connectLeaf(
      root,
      `http://127.0.0.1:${rootPort}`,
      leaf.app,
      `[{remote: access, local: [${leaf.role}]}]`,
    );
    await eventually(
      () => root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'the tunnel',
    );
    await root.services.users.create({ name: 'alice', roles: ['access'] }, 'test');
    await root.services.users.create({ name: 'eve', roles: ['auditor'] }, 'test');
  });
  afterAll(async () => {
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
    await leaf?.close();
    await root?.close();
  });

  const homeOf = async (user: string, roles: string[]) => {
    const { home, key } = await signedInHome(root, rootPort, user, roles);
    homes.push(home);
    return { env: { POSTERN_HOME: home }, key };
  };

  it('lists the leaf’s servers by the names ssh reaches them by', async () => {
    const { env } = await homeOf('alice', ['access']);
    const lines: string[] = [];
    await ls(env, (line) => lines.push(line), { cluster: 'leaf' });
    expect(lines[0]).toMatch(/^Node\s+Address\s+Logins\s+Labels/);
    expect(lines.some((line) => line.startsWith('test-host.leaf '))).toBe(true);
    const json: string[] = [];
    await ls(env, (line) => json.push(line), { cluster: 'leaf', format: 'json' });
    expect(JSON.parse(json.join('\n'))).toContainEqual(
      expect.objectContaining({ hostname: 'test-host', cluster: 'leaf' }),
    );
  });

  it('says so for a cluster that is not a leaf of this root', async () => {
    const { env } = await homeOf('alice', ['access']);
    await expect(ls(env, () => undefined, { cluster: 'nowhere' })).rejects.toThrow(
      'nowhere is not a cluster this proxy trusts',
    );
    // Its own name lists its own servers.
    const lines: string[] = [];
    await ls(env, (line) => lines.push(line), { cluster: 'root' });
    expect(lines[0]).toMatch(/^Node/);
  });

  it('gives a user the leaf maps no role to the leaf’s refusal', async () => {
    const { env } = await homeOf('eve', ['auditor']);
    await expect(ls(env, () => undefined, { cluster: 'leaf' })).rejects.toThrow(
      "none of eve's roles on root (auditor) map to a role on leaf",
    );
  });

  it('a role the root takes away counts on the leaf at the next call, not at the grant’s renewal', async () => {
    await root.services.users.create({ name: 'rita', roles: ['access'] }, 'test');
    const { env } = await homeOf('rita', ['access']);
    const lines: string[] = [];
    await ls(env, (line) => lines.push(line), { cluster: 'leaf' });
    expect(lines.some((line) => line.startsWith('test-host.leaf '))).toBe(true);
    await root.services.users.update({ name: 'rita', roles: ['auditor'] }, 'test');
    await expect(ls(env, () => undefined, { cluster: 'leaf' })).rejects.toThrow(
      "none of rita's roles on root (auditor) map to a role on leaf",
    );
  });

  it('refuses an unsigned read, a signed write and a replayed signature', async () => {
    const url = `http://127.0.0.1:${rootPort}${apiPaths.nodes('leaf')}`;
    expect((await fetch(url)).status).toBe(401);
    const { key } = await homeOf('alice', ['access']);
    const certificateLine = root.services.ca.issueUserCertificate({
      user: 'alice',
      roles: ['access'],
      logins: [],
      publicKey: key.publicKey,
      ttlMs: 600_000,
    });
    const sign = (method: string) =>
      signRequest({
        method,
        pathAndQuery: apiPaths.nodes('leaf'),
        certificateLine,
        privateKeyPem: key.privateKeyPem,
        now: Date.now(),
      });
    const post = await fetch(url, { method: 'POST', headers: sign('POST') });
    expect(post.status).toBe(403);
    expect(((await post.json()) as { message: string }).message).toMatch(/may only read/);
    const headers = sign('GET');
    expect((await fetch(url, { headers })).status).toBe(200);
    const replayed = await fetch(url, { headers });
    expect(replayed.status).toBe(401);
    expect(((await replayed.json()) as { message: string }).message).toMatch(/already used/);
  });
});
