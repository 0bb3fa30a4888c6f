import { Agent, get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
let port: number;
beforeAll(async () => {
  app = await createTestApp();
  ({ port } = await app.listenOnLoopback());
});
afterAll(() => app.close());

/** A GET on a keep-alive connection: its status, Connection header and whether the socket closed. */
function fetchKeepAlive(agent: Agent, path: string) {
  return new Promise<{ status: number; connection?: string; closed: Promise<void> }>(
    (resolve, reject) => {
      get({ host: '127.0.0.1', port, path, agent }, (res) => {
        const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
        res.resume();
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, closed }),
        );
      }).once('error', reject);
    },
  );
}

describe('HTTP while the proxy drains', () => {
  it('answers as before but closes each connection after its answer, so clients move', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const before = await fetchKeepAlive(agent, '/healthz');
      expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });
      app.context.hub.drain();
      const during = await fetchKeepAlive(agent, '/healthz');
      expect(during).toMatchObject({ status: 200, connection: 'close' });
      await during.closed; // the server ended the connection: the next request opens another
    } finally {
      agent.destroy();
    }
  });
});
