// A real S3 server for the tests: OpenStack Swift, started by scripts/testing/swift-server.mjs,
// plain JavaScript that the .mjs benches (bench/ha.mjs) share. Its types are in the .d.mts beside
// it. Most tests use the run's one Swift (shared-swift.testkit.ts) rather than start their own.
export {
  startSwift,
  swiftS3Client,
  type RunningSwift,
  type SwiftCredentials,
} from '../../../../scripts/testing/swift-server.mjs';
