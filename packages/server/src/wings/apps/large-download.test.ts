import { appResourceSchema } from '@postern/contracts';
import { createHash, randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { startNginx, type RunningNginx } from '../../testing/nginx.testkit.js';
import { appBrowser, createAppRole } from './app-client.testkit.js';

// A real nginx serves a 1 GiB file; it comes through a listening Postern whole (the same SHA-256)
// and in bounded memory: the proxy streams the body, it never holds it.

const MiB = 1024 * 1024;
const fileSize = 1024 * MiB;
let app: TestApp;
let nginx: RunningNginx;
let port: number;
let expectedSha256: string;

/** 1 GiB of distinct MiB blocks (a random block, each stamped with its index), and its hash. */
async function writeBigFile(file: string): Promise<string> {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  const handle = await open(file, 'w');
  try {
    for (let i = 0; i < fileSize / MiB; i++) {
      block.writeUInt32BE(i, 0);
      hash.update(block);
      await handle.write(block);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  nginx = await startNginx();
  expectedSha256 = await writeBigFile(path.join(nginx.root, 'big.bin'));
  app = await createTestApp({
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'files', labels: { env: 'prod' } },
        spec: { uri: nginx.url },
      }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  ({ port } = await app.listenOnLoopback());
}, 120_000);

afterAll(async () => {
  await app?.close();
  await nginx?.stop();
});

describe('a large download through the app proxy', () => {
  it('1 GiB from nginx arrives whole, in bounded memory', async () => {
    const alice = await app.signIn(['prod-apps'], 'alice');
    const cookie = await appBrowser(app, () => port).signedInCookie('files.proxy.test', alice);
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 100);
    try {
      const got = await new Promise<{ status: number; bytes: number; sha256: string }>(
        (resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/big.bin',
              headers: { host: 'files.proxy.test', cookie },
            },
            (res) => {
              const hash = createHash('sha256');
              let bytes = 0;
              res.on('data', (chunk: Buffer) => {
                bytes += chunk.length;
                hash.update(chunk);
              });
              res.on('end', () =>
                resolve({ status: res.statusCode!, bytes, sha256: hash.digest('hex') }),
              );
              res.on('error', reject);
            },
          );
          req.on('error', reject);
          req.end();
        },
      );
      expect(got.status).toBe(200);
      expect(got.bytes).toBe(fileSize);
      expect(got.sha256).toBe(expectedSha256);
    } finally {
      clearInterval(sampler);
    }
    // Proxy and client share this process: a buffered body alone would add 1 GiB.
    expect((rssPeak - rssBefore) / MiB).toBeLessThan(256);
  }, 120_000);
});
