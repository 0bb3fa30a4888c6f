import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';
import { sharedSwift } from '../../testing/shared-swift.testkit.js';
import { runBlobStoreConformance } from '../blob-store.conformance.testkit.js';
import { PostgresBlobSpool } from '../spool/blob-spool.postgres.js';
import { SpooledBlobStore } from '../spool/spooled-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';
import type { S3Location } from './s3-client.js';

// Against a real S3 server: OpenStack Swift with its s3api middleware (testing/swift.testkit.ts),
// one per test run; every test gets a bucket of its own.
const schemas = new TestSchemas();
beforeAll(() => schemas.connect());
afterAll(() => schemas.dropAll());

async function location(prefix = ''): Promise<S3Location> {
  const swift = await sharedSwift();
  return {
    bucket: await swift.newBucket('blobs'),
    endpoint: swift.endpoint,
    region: swift.region,
    pathStyle: true,
    prefix,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  };
}

runBlobStoreConformance(
  'S3 (Swift)',
  async () => {
    const store = new S3BlobStore(await location('recordings/'));
    return { store, cleanup: async () => store.close() };
  },
  // Nothing of a multipart upload is visible before it completes.
  { readsWhileAppending: false },
);

runBlobStoreConformance(
  'S3 (Swift) behind a PostgreSQL spool',
  async () => {
    const schema = schemas.newName();
    const store = new SpooledBlobStore(
      new S3BlobStore(await location()),
      new PostgresBlobSpool({ url: testPostgresUrl, schema }),
      { owner: 'proxy-a', flushIntervalMs: 50 },
    );
    return { store, cleanup: () => store.close() };
  },
  { readsWhileAppending: true },
);

describe('S3 blob store', () => {
  it('keeps blobs under its prefix only, and creates its bucket when missing', async () => {
    const where = await location('tenant-a/');
    const a = new S3BlobStore(where);
    const b = new S3BlobStore({ ...where, prefix: 'tenant-b/' });
    const fresh = new S3BlobStore({ ...where, bucket: `${where.bucket}-new` });
    try {
      await a.put('x.json', 'a');
      await b.put('x.json', 'b');
      expect((await a.get('x.json'))?.toString()).toBe('a');
      expect(await b.list()).toEqual(['x.json']);
      await fresh.init();
      await fresh.put('y', 'created');
      expect((await fresh.get('y'))?.toString()).toBe('created');
    } finally {
      a.close();
      b.close();
      fresh.close();
    }
  });

  it('uploads a blob larger than a part as a multipart upload, and reads any range of it', async () => {
    const store = new S3BlobStore(await location());
    try {
      const data = Buffer.alloc(9 * 1024 * 1024 + 123, 7);
      data.write('the end', data.length - 7);
      async function* pieces() {
        for (let at = 0; at < data.length; at += 1024 * 1024)
          yield data.subarray(at, at + 1024 * 1024);
      }
      await store.upload('big.cast.gz', pieces());
      expect(await store.stat('big.cast.gz')).toEqual({ size: data.length });
      const tail = await store.get('big.cast.gz', { start: data.length - 7 });
      expect(tail?.toString()).toBe('the end');
      // Nothing was left behind: no upload is still open.
      expect(await store.abortStaleUploads(new Date(Date.now() + 60_000))).toBe(0);
    } finally {
      store.close();
    }
  });

  it('says the bucket cannot be reached when the server is away', async () => {
    const where = await location();
    const away = new S3BlobStore({ ...where, endpoint: 'http://127.0.0.1:9' });
    try {
      expect(await away.writableProblem()).toBe('the recordings bucket cannot be reached');
      const here = new S3BlobStore(where);
      expect(await here.writableProblem()).toBeUndefined();
      here.close();
    } finally {
      away.close();
    }
  });
});
