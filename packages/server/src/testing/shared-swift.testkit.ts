import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { swiftS3Client, type SwiftCredentials } from './swift.testkit.js';

export interface SharedSwift extends SwiftCredentials {
  /** Creates a bucket nobody else uses: `<prefix>-<random>`. Tests share Swift, never buckets. */
  newBucket(prefix: string): Promise<string>;
  /** What Swift logged so far (the whole run's), for failing tests to print. */
  output(): Promise<string>;
}

let shared: Promise<SharedSwift> | undefined;

/**
 * The run's one Swift (an S3 server), started on first use by swift.global-setup.testkit.ts and
 * stopped when the run ends. Do not stop it; to make it unreachable, put a tcp-relay.testkit.ts
 * relay in front of it. `swiftS3Client(swift)` makes a client for it.
 */
export function sharedSwift(): Promise<SharedSwift> {
  shared ??= connect();
  return shared;
}

async function connect(): Promise<SharedSwift> {
  const broker = inject('swiftBroker');
  if (!broker) throw new Error('no Swift: run under packages/server/vitest.config.ts');
  // The first request waits for Swift to start; a failed start answers 500 with why.
  const answer = await fetch(broker);
  if (!answer.ok) throw new Error(await answer.text());
  const swift = (await answer.json()) as SwiftCredentials;
  const s3 = swiftS3Client(swift);
  return {
    ...swift,
    async newBucket(prefix) {
      // S3's rules: 3-63 characters, lower-case letters, digits and hyphens.
      const start = prefix
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, '-')
        .slice(0, 40);
      const name = `${start}-${randomBytes(6).toString('hex')}`.replace(/^-+/, '');
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    output: async () => (await fetch(`${broker}/output`)).text(),
  };
}
