// The types of swift-server.mjs (plain JavaScript, so that .mjs benches can import it too).
import type { S3Client } from '@aws-sdk/client-s3';

export interface SwiftCredentials {
  /** `http://127.0.0.1:<port>`, the proxy; clients need path-style addressing. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface RunningSwift extends SwiftCredentials {
  createBucket(name: string): Promise<void>;
  /** What the four servers logged so far (proxy access log included), for failing tests. */
  output(): string;
  stop(): Promise<void>;
}

/** An S3 client for `swift` that sends only the checksums S3 requires (as Swift 2.30 expects). */
export function swiftS3Client(swift: SwiftCredentials, maxAttempts?: number): S3Client;

/**
 * A real S3 server: OpenStack Swift 2.30 (Debian's swift-* packages, installed by
 * scripts/ensure-test-deps.sh) with its s3api middleware and tempauth (`test:tester`/`testing`).
 * Four single-process servers on free loopback ports over one-replica rings, all in a temp dir
 * under `options.dir` (default os.tmpdir(); it needs xattrs, which ext4 and tmpfs have). A port
 * taken before Swift binds it costs a retry on fresh ports (three attempts in all).
 */
export function startSwift(options?: { dir?: string }): Promise<RunningSwift>;
