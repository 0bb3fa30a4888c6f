import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fingerprint } from '../../../ssh/keys.js';
import { startSshd, type RunningSshd } from '../../../testing/sshd.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { installNodeScript, shellQuote } from './install-script.js';
import { waitForNode } from '../nodes/inventory.testkit.js';

const run = promisify(execFile);

let app: TestApp;
let sshd: RunningSshd;
let baseUrl: string;
let token: string;

beforeAll(async () => {
  app = await createTestApp();
  // A real listener on loopback, in plain HTTP; the script fetches from the URL the server names.
  let port: number;
  ({ port, baseUrl } = await app.listenOnLoopback());
  app.config.publicAddr = { host: '127.0.0.1', port };
  app.config.insecureNoTls = true;
  const issued = await app.services.joinTokens.create(
    {
      roles: ['Node'],
      join_method: 'token',
      allow: [],
      suggested_agent_matcher_labels: { env: 'lab' },
    },
    hostActor('cli:test'),
  );
  token = issued.token;
  // Its own config dir in a temp dir, never /etc/ssh; it trusts some other CA until the script runs.
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.hostCaPublicKey });
});
afterAll(async () => {
  await sshd?.stop();
  await app.close();
});

/** `curl … | bash`, as the console tells an admin to run it, against the temp sshd. */
function install(scriptUrl: string, curl = 'curl -fsS', env: Record<string, string> = {}) {
  const pidFile = path.join(sshd.configDir, 'sshd.pid');
  return run('bash', ['-c', `${curl} ${shellQuote(scriptUrl)} | bash`], {
    env: {
      ...process.env,
      POSTERN_SSHD_DIR: sshd.configDir,
      POSTERN_SSHD_RELOAD: `kill -HUP "$(cat ${shellQuote(pidFile)})"`,
      POSTERN_NODE_ADDR: `127.0.0.1:${sshd.port}`,
      ...env,
    },
    timeout: 30_000,
  });
}

const config = () => readFile(path.join(sshd.configDir, 'sshd_config'), 'utf8');

describe('GET /scripts/:token/install-node.sh', () => {
  it('makes a real sshd trust the cluster and present a host certificate, idempotently', async () => {
    const scriptUrl = `${baseUrl}/scripts/${token}/install-node.sh`;
    const first = await install(scriptUrl);
    expect(first.stdout).toMatch(
      /^This host is now server [0-9a-f-]{36} \(.+, 127\.0\.0\.1:\d+\) of cluster test-cluster\.$/m,
    );
    const nodeId = /server ([0-9a-f-]{36})/.exec(first.stdout)![1]!;
    const afterFirst = await config();
    const second = await install(scriptUrl);
    expect(second.stdout).toContain(nodeId);
    const text = await config();
    expect(text).toBe(afterFirst);
    expect(text.match(/^# BEGIN postern$/gm)).toHaveLength(1);
    expect(text.match(/^# END postern$/gm)).toHaveLength(1);
    expect(text.startsWith('# BEGIN postern\n')).toBe(true);
    const dir = sshd.configDir;
    expect(text).toContain(`\nTrustedUserCAKeys ${dir}/postern_user_ca.pub\n`);
    expect(text).toContain(`\nHostCertificate ${dir}/ssh_host_ed25519_key-cert.pub\n`);
    // The test sshd names its host keys, so the script names the key it certified too.
    expect(text).toContain(`\nHostKey ${dir}/ssh_host_ed25519_key\n# END postern\n`);
    expect(text).toContain(`Port ${sshd.port}`);

    const { ca, inventory } = app.services;
    expect((await readFile(path.join(dir, 'postern_user_ca.pub'), 'utf8')).trim()).toBe(
      ca.trustedUserCaKeysLine(),
    );
    const hostKey = (await readFile(path.join(dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim();
    const node = await waitForNode(inventory, nodeId);
    expect(node.spec).toMatchObject({
      subKind: 'openssh',
      addr: `127.0.0.1:${sshd.port}`,
      hostPublicKey: hostKey.split(' ').slice(0, 2).join(' '),
      hostKeySource: 'certificate',
    });
    expect(node.metadata.labels.env).toBe('lab');
    expect(
      inventory.rows().filter((row) => row.node.spec.hostPublicKey === node.spec.hostPublicKey),
    ).toHaveLength(1);

    const certFile = path.join(dir, 'ssh_host_ed25519_key-cert.pub');
    const { stdout: described } = await run('ssh-keygen', ['-L', '-f', certFile]);
    expect(described).toContain('Type: ssh-ed25519-cert-v01@openssh.com host certificate');
    expect(described).toContain(`Signing CA: ED25519 ${fingerprint(ca.hostCaPublicKey)}`);
    expect(described).toMatch(new RegExp(`Principals: \\n\\s+${nodeId}\\n`));

    // After the reload, sshd itself presents that certificate.
    const cert = (await readFile(certFile, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
    await vi.waitFor(
      async () => {
        const { stdout } = await run('ssh-keyscan', ['-c', '-p', String(sshd.port), '127.0.0.1']);
        expect(stdout).toContain(cert);
      },
      { timeout: 10_000, interval: 200 },
    );
  });

  it('answers an unknown or expired token with a script that fails, and never caches', async () => {
    const ok = await fetch(`${baseUrl}/scripts/${token}/install-node.sh`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/x-shellscript/);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const script = await ok.text();
    expect(script).toMatch(/^#!\/usr\/bin\/env bash\n/);
    expect(script).toContain('set -euo pipefail');
    expect(script).toContain(`join_token='${token}'`);
    expect(script).toContain(`proxy_url='${baseUrl}'`);

    const unknown = await fetch(`${baseUrl}/scripts/${'0'.repeat(32)}/install-node.sh`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toMatch(/not valid.*\n.*exit 1/s);
    // Without -f curl hands the 404's script to bash, which then fails with its message.
    const failed = await install(`${baseUrl}/scripts/nope/install-node.sh`, 'curl -sS').then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/postern: this install link is not valid/);
  });

  it('refuses a host value that would need escaping, before changing anything', async () => {
    const before = await config();
    const url = `${baseUrl}/scripts/${token}/install-node.sh`;
    const refused = await install(url, 'curl -fsS', {
      POSTERN_NODE_ADDR: 'a","subKind":"postern:22',
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(1);
    expect(refused?.stderr).toMatch(/unexpected characters in 'a","subKind/);
    expect(await config()).toBe(before);
  });
});

describe('installNodeScript', () => {
  it('is valid bash and quotes what the server puts in', async () => {
    const nasty = `x'; touch /tmp/pwned; echo '$(id)\``;
    const script = installNodeScript({ baseUrl: 'https://proxy.example:3080', token: nasty });
    await run('bash', ['-n', '-c', script]);
    const { stdout } = await run('bash', ['-c', `printf %s ${shellQuote(nasty)}`]);
    expect(stdout).toBe(nasty);
    expect(script).toContain(`join_token=${shellQuote(nasty)}\n`);
  });
});
