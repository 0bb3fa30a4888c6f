import { runBackendConformance } from './backend.conformance.testkit.js';
import { MemoryBackend } from './memory.js';

runBackendConformance(
  'memory',
  async ({ sweepIntervalMs }) => {
    const backend = new MemoryBackend({ sweepIntervalMs });
    return { backend, cleanup: () => backend.close() };
  },
  { sharedStorage: false },
);
