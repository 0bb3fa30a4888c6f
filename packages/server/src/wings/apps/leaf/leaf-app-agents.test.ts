import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeafAppAgents } from './leaf-app-agents.js';

/**
 * The pools of tunnels a root keeps per app session on a leaf's app: a real HTTP server stands in
 * for the leaf's end of each tunnel (a loopback connection is what `open` returns here).
 */
let server: Server;
let opened = 0;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(() => server.close());

const open = async () => {
  opened += 1;
  return connect((server.address() as AddressInfo).port, '127.0.0.1');
};

function get(agent: ReturnType<LeafAppAgents['for']>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: 'app.leaf.invalid', path: '/', agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('LeafAppAgents', () => {
  it('reuses one tunnel for a session’s requests one after another, and closes it when idle', async () => {
    const agents = new LeafAppAgents();
    const before = opened;
    for (let i = 0; i < 5; i += 1) expect(await get(agents.for('s1', open))).toBe('ok');
    expect(opened - before).toBe(1);
    // Another session gets tunnels of its own.
    expect(await get(agents.for('s2', open))).toBe('ok');
    expect(opened - before).toBe(2);
    agents.closeIdle(Date.now() + 1_000);
    expect(agents.size).toBe(2);
    agents.closeIdle(Date.now() + 61_000);
    expect(agents.size).toBe(0);
    agents.close();
  });

  it('drops a session’s pool when it ends; its next request opens a new tunnel', async () => {
    const agents = new LeafAppAgents();
    const before = opened;
    expect(await get(agents.for('s3', open))).toBe('ok');
    agents.drop('s3');
    expect(agents.size).toBe(0);
    expect(await get(agents.for('s3', open))).toBe('ok');
    expect(opened - before).toBe(2);
    agents.close();
  });
});

describe('LeafAppAgents and a changed identity', () => {
  it('closes a session’s tunnels when the user’s roles here change', async () => {
    const agents = new LeafAppAgents();
    const before = opened;
    expect(await get(agents.for('s4', open, 'roles:a'))).toBe('ok');
    expect(await get(agents.for('s4', open, 'roles:a'))).toBe('ok');
    expect(opened - before).toBe(1);
    expect(await get(agents.for('s4', open, 'roles:b'))).toBe('ok');
    expect(opened - before).toBe(2);
    agents.close();
  });
});
