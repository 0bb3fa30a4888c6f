import { apiPaths } from '@postern/contracts';
import { X509Certificate } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { kubectlUsing, kubectlWith } from '../../../testing/fake-kube/kubectl.testkit.js';
import { nextTotp, type TestUser } from '../../../testing/identity.testkit.js';
import { startCheckedKubeLab, type CheckedKubeLab } from '../../../testing/kube-lab.testkit.js';
import { signedHeaders } from '../../../testing/signed-request.testkit.js';
import { PosternHome } from '../../../cli/login/postern-home.js';
import { kubeServerName } from '../kube-ca.js';
import { kubeLogin } from './kube-client.js';
import { kubeCredentials } from './kube-credentials.js';

// require_session_mfa with kubectl: the login route issues a one-minute certificate marked as
// checked only for an authenticator code; the Kubernetes listener lets a marked certificate
// through and refuses the login's own; and `postern kube login` writes a context whose credential
// plugin (the built `postern kube credentials`) asks for the code on kubectl's terminal. The real
// kubectl, through a listening Postern over TLS, to the fake API server (FAKE: no Kubernetes here).

const posternBin = fileURLToPath(new URL('../../../../bin/postern.js', import.meta.url));

let lab: CheckedKubeLab;
let app: TestApp;
let mona: TestUser;
let home: string;
let port: number;

beforeAll(async () => {
  lab = await startCheckedKubeLab();
  ({ app, port, mona, home } = lab);
});

afterAll(() => lab?.stop());

function login(body: object) {
  const url = apiPaths.kubeLogin('lab');
  const payload = JSON.stringify(body);
  return app.server.inject({
    method: 'POST',
    url,
    headers: {
      ...signedHeaders(app, 'mona', { method: 'POST', path: url, body: payload }),
      'content-type': 'application/json',
    },
    payload,
  });
}

const sessionMfaMark = 'URI:postern-session-mfa:lab';
const askCode = () => Promise.reject(new Error('no code should be asked for'));

describe('POST kubeconnect/{name}/login for roles with require_session_mfa', () => {
  it('says a check is needed, and signs nothing without a code (it would open nothing)', async () => {
    const res = await login({});
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({ session_mfa_required: true, session_mfa_verified: false });
    expect(answer.cert).toBeUndefined();
    expect(answer.key).toBeUndefined();
    expect(new X509Certificate(answer.ca).ca).toBe(true);
    expect(answer.server).toBe(`https://localhost:${port}/kube/lab`);
    // Until when the context can ask for checked certificates: the login's end (a minute here).
    const loginEnds = Date.parse(answer.expires) - app.clock.now();
    expect(loginEnds).toBeGreaterThan(50_000);
    expect(loginEnds).toBeLessThanOrEqual(60_000);
  });

  it('refuses a wrong code (403, audited) and a malformed one (400)', async () => {
    const wrong = await login({ totp_code: '000000' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.message).toMatch(/the MFA check for this session failed/);
    const failed = async () => {
      const to = new Date(app.clock.now() + 60_000);
      const { events } = await app.audit.search({ from: new Date(0), to, limit: 100 });
      return events.some(
        (e) => e.code === 'T3007W' && e.user === 'mona' && e.subject === 'kube lab',
      );
    };
    await expect.poll(failed).toBe(true);
    expect((await login({ totp_code: 'abc' })).statusCode).toBe(400);
  });

  it('with a code, issues a one-minute certificate marked as checked for this cluster', async () => {
    const res = await login({ totp_code: nextTotp(app, mona.totpSecret!) });
    expect(res.statusCode).toBe(200);
    const answer = res.json();
    expect(answer.session_mfa_verified).toBe(true);
    const cert = new X509Certificate(answer.cert);
    expect(cert.subjectAltName).toContain(sessionMfaMark);
    // It names the device that answered: an mfa_device lock on it refuses the certificate.
    const [phone] = (await app.services.users.store.credentials('mona')).devices;
    expect(cert.subjectAltName).toContain(`URI:postern-session-mfa-device:${phone!.id}`);
    const lifetime = Date.parse(cert.validTo) - app.clock.now();
    expect(lifetime).toBeGreaterThan(50_000);
    expect(lifetime).toBeLessThanOrEqual(61_000);
  });
});

describe('the Kubernetes listener', () => {
  const kubectlHolding = async (certPem: string, keyPem: string, caPem: string) => {
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    return kubectlWith(
      {
        server: `https://127.0.0.1:${port}/kube/lab`,
        'certificate-authority-data': base64(caPem),
        'tls-server-name': kubeServerName,
      },
      { 'client-certificate-data': base64(certPem), 'client-key-data': base64(keyPem) },
    );
  };

  it("refuses the login's certificate, saying how to get a checked one, and takes a checked one", async () => {
    const ca = await app.services.kubeCa();
    const unchecked = await ca.userCertificate('mona', 'lab', 600_000);
    const checked = await ca.userCertificate('mona', 'lab', 60_000, { sessionMfaVerified: true });
    const refusedKubectl = await kubectlHolding(unchecked.certPem, unchecked.keyPem, ca.certPem);
    const checkedKubectl = await kubectlHolding(checked.certPem, checked.keyPem, ca.certPem);
    try {
      const refused = await refusedKubectl.run([
        'get',
        '--raw',
        '/kube/lab/api/v1/namespaces/default/pods',
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('run postern kube login lab again');
      const pods = await checkedKubectl.run(['get', 'pods']);
      expect(pods.stderr).toBe('');
      expect(pods.stdout).toContain('web-1');
    } finally {
      await refusedKubectl.cleanup();
      await checkedKubectl.cleanup();
    }
  });
});

describe('postern kube login, then kubectl', () => {
  it('runs the credential plugin, which asks for a code on the terminal and keeps the check for its minute', async () => {
    const kubeconfig = path.join(home, 'kubeconfig');
    const env = { POSTERN_HOME: home, HOME: home, KUBECONFIG: kubeconfig };
    const { context, checked } = await kubeLogin(env, 'lab', {
      postern: { command: process.execPath, args: [posternBin] },
    });
    expect(checked).toBe(true);
    const written = parse(await readFile(kubeconfig, 'utf8'));
    expect(written.users[0].user.exec).toMatchObject({
      command: process.execPath,
      args: [posternBin, 'kube', 'credentials', 'lab', '--proxy', '127.0.0.1'],
      interactiveMode: 'IfAvailable',
    });
    expect(written['current-context']).toBe(context.name);
    // The CA only: no certificate was signed, since one without a code would open nothing.
    const files = new PosternHome(env).kubeFiles('127.0.0.1', 'lab');
    await expect(stat(files.cert)).rejects.toThrow(/ENOENT/);
    await expect(stat(files.key)).rejects.toThrow(/ENOENT/);
    expect((await stat(files.ca)).isFile()).toBe(true);

    const kubectl = await kubectlUsing(kubeconfig, { POSTERN_HOME: home });
    try {
      // No terminal and no check kept: the plugin cannot ask, and says so.
      const blind = await kubectl.run(['get', 'pods']);
      expect(blind.code).not.toBe(0);
      expect(blind.stderr).toContain('kubectl has no terminal to ask for your code on');

      const shell = kubectl.startInPty(['get', 'pods']);
      await shell.waitFor(/Authenticator code for kube lab: /, 'the question');
      shell.write(`${nextTotp(app, mona.totpSecret!)}\r`);
      expect(await shell.exited).toBe(0);
      expect(shell.output()).toContain('web-1');
      const kept = new PosternHome({ POSTERN_HOME: home }).kubeFiles('127.0.0.1', 'lab').checked;
      expect((await stat(kept)).mode & 0o777).toBe(0o600);

      // Within the minute, the next kubectl needs no terminal: the check is kept.
      const again = await kubectl.run(['get', 'pods']);
      expect(again.stderr).toBe('');
      expect(again.stdout).toContain('web-1');
    } finally {
      await kubectl.cleanup();
    }
  }, 60_000);

  it("never hands out a check kept under another user's login", async () => {
    const kept = new PosternHome({ POSTERN_HOME: home }).kubeFiles('127.0.0.1', 'lab').checked;
    const mine = JSON.parse(await readFile(kept, 'utf8'));
    await writeFile(kept, JSON.stringify({ ...mine, user: 'someone-else' }));
    const env = { POSTERN_HOME: home, HOME: home };
    const ask = () => kubeCredentials(env, 'lab', '127.0.0.1', { askCode, interactive: false });
    // Not reused: a new check is needed, and without a terminal it cannot be asked for.
    await expect(ask()).rejects.toThrow('kubectl has no terminal to ask for your code on');
    await writeFile(kept, JSON.stringify(mine));
    expect(JSON.parse(await ask()).status.clientCertificateData).toBe(mine.cert);
  });
});
