import { startSshProxy } from '../wings/servers/ssh-proxy/start-ssh-proxy.js';
import type { TestApp } from './app-harness.testkit.js';

/**
 * The SSH proxy over a test app's services, on a free loopback port it reports as `ssh`. `now`:
 * the clock it judges certificates by (the real one unless a test moves the app's).
 */
export async function startTestSshProxy(
  app: TestApp,
  options: { loginGraceMs?: number; now?: () => number } = {},
) {
  app.config.sshAddr = { host: '127.0.0.1', port: 0 };
  const proxy = await startSshProxy({
    config: app.config,
    ca: app.services.ca,
    nodes: app.services.nodeDirectory,
    terminals: app.services.terminals,
    access: app.services.access,
    locks: app.services.lockWatcher,
    audit: app.audit,
    recordings: app.services.recordings,
    backend: app.backend,
    clusterSsh: app.context.clusterSsh,
    now: Date.now,
    log: () => undefined,
    ...options,
  });
  app.services.addresses.report('ssh', proxy.address);
  return proxy;
}
