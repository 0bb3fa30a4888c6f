import { X509Certificate } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { signedInHome } from '../../../testing/cli-home.testkit.js';
import type { FakeKubeApiServer } from '../../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import { kubectlBinary } from '../../../testing/fake-kube/kubectl.testkit.js';
import { startKubeLab, type KubeLab } from '../../../testing/kube-lab.testkit.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { kubeLogin, listKubeClusters } from './kube-client.js';
import { proxyKube } from './kube-local-proxy.js';
import { writeKubeContext } from './kubeconfig-file.js';

// The user's commands against a listening proxy over TLS: `postern kube ls`, `postern kube login`
// writing a context the real kubectl then uses (through the web port, by server name), and
// `postern proxy kube` serving the cluster on loopback without TLS.

const run = promisify(execFile);
let lab: KubeLab;
let app: TestApp;
let fake: FakeKubeApiServer;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  lab = await startKubeLab();
  ({ app, fake } = lab);
  await app.services.users.create({ name: 'alice', roles: ['lab'] }, 'test');
  ({ home } = await signedInHome(app, lab.port, 'alice', ['lab'], { tls: true }));
  env = {
    ...process.env,
    POSTERN_HOME: home,
    HOME: home,
    KUBECONFIG: path.join(home, 'kubeconfig'),
  };
});

afterAll(async () => {
  await lab?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

const kubectl = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  run(kubectlBinary, args, { env: { ...env, ...extraEnv }, timeout: 60_000 });

describe('postern kube ls', () => {
  it('lists the clusters the user may reach, with the groups they act in', async () => {
    const lines: string[] = [];
    await listKubeClusters(env, (line) => lines.push(line));
    expect(lines[0]).toMatch(/^NAME\s+USERS\s+GROUPS\s+STATUS\s+LABELS/);
    expect(lines).toHaveLength(2);
    // Online: the proxy's health check had /version answered by the API server.
    await expect
      .poll(async () => {
        const lines: string[] = [];
        await listKubeClusters(env, (line) => lines.push(line));
        return lines[1];
      })
      .toMatch(/^lab\s+\(your name\)\s+lab-users\s+online\s+env=lab/);
  });
});

describe('postern kube login', () => {
  it('writes a current context that kubectl uses through the web port', async () => {
    const { context, kubeconfig } = await kubeLogin(env, 'lab');
    expect(context.name).toBe('127.0.0.1-lab');
    const written = parse(await readFile(kubeconfig, 'utf8'));
    expect(written['current-context']).toBe('127.0.0.1-lab');
    expect(written.clusters[0].cluster).toMatchObject({
      server: expect.stringMatching(/^https:\/\/localhost:\d+\/kube\/lab$/),
      'tls-server-name': 'kube.postern.internal',
    });
    // No per-session MFA in these roles: the certificate's files, no credential plugin.
    expect(written.users[0].user).toEqual({
      'client-certificate': expect.stringMatching(/lab\.crt$/),
      'client-key': expect.stringMatching(/lab\.key$/),
    });
    // It ends with the CLI login behind it (ten minutes here), not twelve hours later.
    const certPem = await readFile(written.users[0].user['client-certificate'], 'utf8');
    const lifetime = Date.parse(new X509Certificate(certPem).validTo) - Date.now();
    expect(lifetime).toBeGreaterThan(500_000);
    expect(lifetime).toBeLessThanOrEqual(600_000);
    const pods = await kubectl(['get', 'pods']);
    expect(pods.stdout).toContain('web-1');
    const seen = fake.requests.findLast((request) => request.path.endsWith('/pods'));
    expect(seen?.headers.impersonate).toEqual({
      'impersonate-user': ['alice'],
      'impersonate-group': ['lab-users'],
    });
  });

  it('keeps the other entries of an existing kubeconfig', async () => {
    const file = path.join(home, 'other-kubeconfig');
    await writeKubeContext(file, {
      name: 'elsewhere',
      server: 'https://127.0.0.21:6443',
      tlsServerName: 'x',
      caFile: '/ca',
      user: { certFile: '/c', keyFile: '/k' },
    });
    await kubeLogin({ ...env, KUBECONFIG: file }, 'lab', { setCurrent: false });
    const written = parse(await readFile(file, 'utf8'));
    expect(written.contexts.map((c: { name: string }) => c.name)).toEqual([
      'elsewhere',
      '127.0.0.1-lab',
    ]);
    expect(written['current-context']).toBe('elsewhere');
  });

  it('refuses a cluster the roles do not reach, as unknown', async () => {
    await expect(kubeLogin(env, 'nowhere')).rejects.toThrow(/no Kubernetes cluster named nowhere/);
  });
});

describe('postern proxy kube', () => {
  it('serves the cluster on loopback without TLS, for kubectl and other tools', async () => {
    const local = await proxyKube(env, 'lab', 0);
    try {
      const pods = await kubectl(['get', 'pods'], { KUBECONFIG: local.kubeconfig });
      expect(pods.stdout).toContain('web-1');
      const exec = await kubectl(['exec', 'web-1', '--', 'echo', 'through the local proxy'], {
        KUBECONFIG: local.kubeconfig,
      });
      expect(exec.stdout).toBe('through the local proxy\n');
    } finally {
      local.close();
    }
  });
});
