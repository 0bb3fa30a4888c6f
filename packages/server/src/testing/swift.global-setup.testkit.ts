import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startSwift, type RunningSwift, type SwiftCredentials } from './swift.testkit.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where tests ask for the run's one Swift: see shared-swift.testkit.ts. */
    swiftBroker: string;
  }
}

/**
 * vitest's globalSetup for the server tests: one Swift (an S3 server, swift.testkit.ts) for the
 * whole run, shared by every test file, stopped at its end.
 *
 * It is started on first demand, not here: most runs (one unrelated file, say) never use it,
 * and its ~2 s start would slow them all. Test files run in other processes, so they ask for it
 * over a tiny loopback HTTP server (the "broker") whose URL reaches them through provide/inject:
 * the first request starts Swift, every request waits for the same start and gets the same
 * answer (its credentials, or why it failed, its logs included). `GET /output` is its log.
 */
export default async function setup(project: TestProject) {
  let swift: Promise<RunningSwift> | undefined;
  const broker = createServer((req, res) => {
    swift ??= startSwift();
    swift.then(
      (running) => {
        const { endpoint, region, accessKeyId, secretAccessKey } = running;
        const credentials: SwiftCredentials = { endpoint, region, accessKeyId, secretAccessKey };
        res.end(req.url === '/output' ? running.output() : JSON.stringify(credentials));
      },
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
  project.provide('swiftBroker', `http://127.0.0.1:${(broker.address() as AddressInfo).port}`);

  return async () => {
    await new Promise((resolve) => broker.close(resolve));
    await swift?.then(
      (running) => running.stop(),
      () => undefined,
    );
  };
}
