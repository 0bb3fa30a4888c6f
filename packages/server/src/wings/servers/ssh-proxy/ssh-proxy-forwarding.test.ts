import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import {
  listenHttp,
  randomForwardPort,
  retry,
  sshClientFor,
  startSshAgent,
  startSshProxyWorld,
  type SshProxyWorld,
} from '../../../testing/ssh-proxy-world.testkit.js';

// ssh -R and ssh -A through the SSH proxy to a real sshd, each as the roles allow it.

let world: SshProxyWorld;
let alice: OpenSshClientSetup;

beforeAll(async () => {
  world = await startSshProxyWorld();
  ({ alice } = world);
}, 60_000);

afterAll(() => world?.stop());

const events = () => world.events();

describe('remote forwarding through the proxy', () => {
  it('has the node listen for the client (ssh -R) when the roles allow port forwarding', async () => {
    // The node (a real sshd on this machine) listens on its loopback; a connection there comes
    // back through the proxy to the client, which connects to its own local web server.
    const web = await listenHttp('back through the tunnel');
    const port = randomForwardPort();
    const child = alice.spawn('ssh', [
      '-N',
      '-o',
      'ExitOnForwardFailure=yes',
      '-R',
      `127.0.0.1:${port}:127.0.0.1:${web.port}`,
      'root@sshd-host',
    ]);
    try {
      const body = await retry(async () => (await fetch(`http://127.0.0.1:${port}/`)).text());
      expect(body).toBe('back through the tunnel');
      await vi.waitFor(async () => {
        const forwarded = (await events()).filter(
          (e) =>
            e.code === 'T3003I' && e.user === 'alice' && e['addr.local'] === `127.0.0.1:${port}`,
        );
        expect(forwarded.length).toBeGreaterThan(0);
      });
    } finally {
      child.kill();
      web.server.close();
    }
  });

  it('refuses ssh -R to a login whose roles do not allow port forwarding', async () => {
    const dave = await sshClientFor(world, 'dave', ['root-access', 'no-forwarding']);
    try {
      const port = randomForwardPort();
      const result = await dave.run('ssh', [
        '-N',
        '-o',
        'ExitOnForwardFailure=yes',
        '-R',
        `127.0.0.1:${port}:127.0.0.1:9`,
        'root@sshd-host',
      ]);
      expect(result.code).toBe(255);
      expect(result.stderr).toMatch(/remote port forwarding failed/i);
    } finally {
      await dave.remove();
    }
  });
});

describe('agent forwarding through the proxy', () => {
  it('gives the node the client agent only when a role allows forward_agent', async () => {
    const agent = await startSshAgent(world.dir);
    const carol = await sshClientFor(world, 'carol', ['root-access', 'agent-forwarding']);
    try {
      const env = { SSH_AUTH_SOCK: agent.socket };
      const allowed = await carol.run('ssh', ['-A', 'root@sshd-host', 'ssh-add -l'], '', env);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain(agent.fingerprint);
      const refused = await alice.run('ssh', ['-A', 'root@sshd-host', 'ssh-add -l'], '', env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/Could not open a connection to your authentication agent/);
    } finally {
      await carol.remove();
      agent.stop();
    }
  });
});
