import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createKubeServer } from './kube-listener.js';

// The Kubernetes listener's own certificate, in a proxy that runs for longer than it is valid.

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
}, 60_000);

afterAll(async () => {
  await app?.close();
});

/** The certificate the listener serves to a client that trusts the Kubernetes CA, verified. */
function servedCertificate(port: number, caPem: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const tls = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: caPem });
    tls.once('error', reject);
    tls.once('secureConnect', () => {
      resolve(tls.getPeerCertificate().fingerprint256);
      tls.destroy();
    });
  });
}

describe('the Kubernetes listener', () => {
  it('serves a new certificate before the one it started with expires, still valid for its names', async () => {
    const ca = await app.services.kubeCa();
    const listener = await createKubeServer({
      ca,
      serverNames: ['localhost'],
      proxy: app.services.kubeProxy,
      certTtlMs: 3_000,
    });
    await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = listener.server.address() as AddressInfo;
      const first = await servedCertificate(port, ca.certPem);
      await vi.waitFor(
        async () => expect(await servedCertificate(port, ca.certPem)).not.toBe(first),
        { timeout: 10_000, interval: 200 },
      );
    } finally {
      listener.close();
    }
  });
});
