import { connect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { createSelfSigned } from './self-signed.js';

// The web port relays bulk data (apps, tunnels, terminals): it picks AES-128-GCM over the
// AES-256-GCM that Node's and OpenSSL's clients offer first, and only AEAD suites with ECDHE.

let app: TestApp;
let port: number;

beforeAll(async () => {
  app = await createTestApp({ https: await createSelfSigned(['localhost']) });
  ({ port } = await app.listenOnLoopback());
}, 30_000);

afterAll(() => app?.close());

function negotiated(options: ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...options });
    socket.once('secureConnect', () => {
      resolve(socket.getCipher().name);
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

describe('the web port cipher order', () => {
  it('picks AES-128-GCM with TLS 1.3 although the client offers AES-256-GCM first', async () => {
    expect(await negotiated()).toBe('TLS_AES_128_GCM_SHA256');
  });

  it('picks ECDHE with AES-128-GCM with TLS 1.2', async () => {
    expect(await negotiated({ maxVersion: 'TLSv1.2' })).toMatch(
      /^ECDHE-(RSA|ECDSA)-AES128-GCM-SHA256$/,
    );
  });

  it('refuses a TLS 1.2 client that offers only CBC suites', async () => {
    await expect(
      negotiated({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES128-SHA' }),
    ).rejects.toThrow(/handshake failure|no shared cipher/i);
  });
});
