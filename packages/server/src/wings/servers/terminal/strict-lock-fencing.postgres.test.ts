import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { TestSchemas } from '../../../backend/testing/postgres.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { closeBehindRelay, relayedPostgres } from '../../../testing/relayed-postgres.testkit.js';
import type { TcpRelay } from '../../../testing/tcp-relay.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';

// A proxy whose cluster database goes silent (its connections frozen behind a loopback relay:
// a host gone, a cable cut) cannot see locks written meanwhile. Within the event log's read
// timeout its lock view turns stale, and the shells of users whose roles say `lock: strict`
// end on it; a best_effort user's shell goes on. Real PostgreSQL, real sshd, real sockets.
const schemas = new TestSchemas();
let relay: TcpRelay;
let node: SshNodeApp;

beforeAll(async () => {
  await schemas.connect();
  const relayed = await relayedPostgres();
  relay = relayed.relay;
  node = await startSshNodeApp({
    storage: { type: 'postgres', url: relayed.url, schema: schemas.newName() },
  });
  for (const [name, options] of [
    ['fenced-r', { lock: 'strict' }],
    ['plain-r', {}],
  ] as const) {
    await node.app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name },
        spec: { options, allow: { node_labels: { env: 'test' }, logins: ['root'] } },
      }),
      hostActor('test'),
    );
  }
}, 60_000);

afterAll(async () => {
  await closeBehindRelay(relay, async () => node?.close());
  await schemas.dropAll();
});

async function shell(user: string, role: string) {
  const client = await openTerminal({
    baseUrl: node.baseUrl,
    headers: await node.app.signIn([role], user),
    params: { server_id: node.nodeId, login: 'root', term: { w: 80, h: 24 } },
  });
  await client.waitForOutput(/[#$] $/m);
  return client;
}

describe('lock: strict when the cluster database goes silent', () => {
  it("ends the strict user's shell on this proxy, and leaves the best_effort user's", async () => {
    const strict = await shell('sam', 'fenced-r');
    const plain = await shell('bob', 'plain-r');
    relay.freeze();
    const closed = await strict.closed;
    expect(closed.code).toBe(1000);
    // Ended as a lock ends it: the watcher fences a strict user as if locked.
    const end = strict.frames.find((f) => f.type === T.sessionEnd)?.payload ?? '{}';
    expect((JSON.parse(end) as { reason?: string }).reason).toMatch(
      /^locked: the lock list cannot be confirmed current right now/,
    );
    plain.type('echo "still-""here"\r');
    await plain.waitForOutput('still-here');
    plain.close();
  }, 60_000);
});
