import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSigned } from '../tls/self-signed.js';
import { startHaproxy, type RunningHaproxy } from '../testing/haproxy.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../testing/ssh-proxy.testkit.js';
import { startTerminalFixture, type TerminalFixture } from '../testing/terminal-fixture.testkit.js';

// Behind a load balancer passing TCP through (TLS kept by the proxies, the layout
// docs/high-availability.md shows), every connection comes from the balancer. With HAProxy's
// `send-proxy-v2` and the balancer in trusted_proxies, the proxy learns each client's address:
// sign-in limits count clients apart, and the SSH audit names the client. Clients here connect
// from 127.0.0.5 and 127.0.0.6 (loopback), HAProxy from 127.0.0.1.

let fixture: TerminalFixture;
let web: RunningHaproxy;
let ssh: RunningHaproxy;
let sshProxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let alice: OpenSshClientSetup;

beforeAll(async () => {
  fixture = await startTerminalFixture({
    nodeName: 'lb-host',
    https: await createSelfSigned(['localhost']),
    trustedProxies: ['127.0.0.1'],
    auth: { login_rate_limit: 2 },
  });
  const { app } = fixture;
  const webPort = (app.server.server.address() as { port: number }).port;
  web = await startHaproxy({
    backends: [{ host: '127.0.0.1', port: webPort }],
    tls: true,
    sendProxy: true,
  });
  // haproxy's checks send a PROXY header too (LOCAL): the proxy must answer them over TLS.
  await web.allUp().catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${web.output()}`);
  });
  await app.services.users.create({ name: 'alice', roles: [fixture.role] }, 'test');
  sshProxy = await startTestSshProxy(app);
  ssh = await startHaproxy({
    backends: [{ host: '127.0.0.1', port: sshProxy.port }],
    sendProxy: true,
    check: false,
  });
  alice = await openSshClient({
    ca: app.services.ca,
    user: 'alice',
    roles: [fixture.role],
    logins: ['root'],
    proxyPort: ssh.port,
  });
}, 60_000);

afterAll(async () => {
  await alice?.remove();
  await ssh?.stop();
  await web?.stop();
  await sshProxy?.stop();
  await fixture?.close();
});

/** A failed command-line sign-in through the balancer from `from`: its HTTP status. */
function failedSignIn(from: string): Promise<number> {
  const body = JSON.stringify({ user: 'nobody', password: 'wrong-password', pub_key: '' });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: web.port,
        localAddress: from,
        method: 'POST',
        path: '/v1/webapi/ssh/certs',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the PROXY protocol from a trusted balancer', () => {
  it('counts each client’s failed sign-ins on its own, though all come through one balancer', async () => {
    expect(await failedSignIn('127.0.0.5')).not.toBe(429);
    expect(await failedSignIn('127.0.0.5')).not.toBe(429);
    expect(await failedSignIn('127.0.0.5')).toBe(429);
    // Without the header this client would share the balancer's count and be refused too.
    expect(await failedSignIn('127.0.0.6')).not.toBe(429);
  });

  it('names the client, not the balancer, in the audit of an ssh session through it', async () => {
    // The jump connection (to the balancer) leaves from 127.0.0.5; first match wins in ssh_config.
    const configured = await readFile(alice.configFile, 'utf8');
    await writeFile(alice.configFile, `Host proxy\n  BindAddress 127.0.0.5\n${configured}`);
    const result = await alice.run('ssh', ['root@lb-host', 'echo through-the-balancer']);
    expect(result).toMatchObject({ code: 0, stdout: 'through-the-balancer\n' });
    const { events } = await fixture.app.audit.search({
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 60_000),
      eventTypes: ['session.start'],
      limit: 10,
      order: 'desc',
    });
    const started = events.find((event) => event.user === 'alice');
    expect(started?.['addr.remote']).toMatch(/^127\.0\.0\.5:\d+$/);
  });
});
