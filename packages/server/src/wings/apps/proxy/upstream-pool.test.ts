import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamPool } from './upstream-pool.js';

let upstream: Server;
let url: URL;

beforeAll(async () => {
  upstream = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
});
afterAll(() => new Promise((resolve) => upstream.close(resolve)));

describe('the upstream pool', () => {
  it('keeps an agent while it has connections, and drops it once it has none', async () => {
    const pool = new UpstreamPool(4);
    const agent = pool.agentFor(url, false);
    await new Promise<void>((resolve, reject) => {
      request(url, { agent }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
    // The keep-alive connection is free in the pool: the agent stays.
    await new Promise((resolve) => setImmediate(resolve));
    pool.dropUnused();
    expect(pool.size).toBe(1);
    expect(pool.agentFor(url, false)).toBe(agent);

    // Once its connection is gone (the upstream closed it, or it idled out), so is the agent.
    for (const sockets of Object.values(agent.freeSockets))
      for (const s of sockets ?? []) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    pool.dropUnused();
    expect(pool.size).toBe(0);
    expect(pool.agentFor(url, false)).not.toBe(agent);
    pool.close();
  });
});
