import { runBlobStoreConformance } from './blob-store.conformance.testkit.js';
import { MemoryBlobStore } from './memory-blob-store.testkit.js';

// The memory store stands in for "any other blob store" in the recordings tests, so it must
// behave like the real one.
runBlobStoreConformance(
  'memory',
  async () => ({ store: new MemoryBlobStore(), cleanup: async () => undefined }),
  { readsWhileAppending: true },
);
