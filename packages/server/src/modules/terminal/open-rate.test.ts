import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { openTerminal } from '../../testing/terminal-client.testkit.js';
import { OpenRateLimiter } from './open-rate.js';

describe('OpenRateLimiter', () => {
  it('allows the burst at once, then the rate, per user', () => {
    let now = 0;
    const limiter = new OpenRateLimiter({ burst: 3, perSecond: 2 }, () => now);
    for (let i = 0; i < 3; i += 1) limiter.take('alice');
    expect(() => limiter.take('alice')).toThrow(
      /too many connections opened at once: try again in 1 s/,
    );
    limiter.take('bob'); // another user has their own allowance
    now += 500; // half a second refills one
    limiter.take('alice');
    expect(() => limiter.take('alice')).toThrow(/try again/);
    now += 10_000; // never more than the burst
    for (let i = 0; i < 3; i += 1) limiter.take('alice');
    expect(() => limiter.take('alice')).toThrow(/try again/);
  });
});

describe('opening terminals faster than the limit', () => {
  let app: TestApp;
  let sshd: Awaited<ReturnType<typeof startSshd>>;
  let baseUrl: string;
  let nodeId: string;

  beforeAll(async () => {
    app = await createTestApp({ sessionOpenLimit: { burst: 4, perSecond: 0.1 } });
    await app.server.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
    const admin = hostActor('test');
    nodeId = (
      await app.services.inventory.addOpenSsh(
        { name: 'rate-host', addr: `127.0.0.1:${sshd.port}`, labels: {} },
        admin,
      )
    ).metadata.name;
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'root-access' },
        spec: { allow: { node_labels: { '*': '*' }, logins: ['root'] } },
      }),
      admin,
    );
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    await app?.close();
  });

  it('refuses the opens above the burst with a readable reason, audited; others are not held back', async () => {
    const alice = await app.signIn(['root-access'], 'alice');
    const bob = await app.signIn(['root-access'], 'bob');
    const open = (headers: Record<string, string>) =>
      openTerminal({
        baseUrl,
        headers,
        params: { server_id: nodeId, login: 'root', term: { w: 80, h: 24 } } as never,
      });
    const clients = await Promise.all(Array.from({ length: 7 }, () => open(alice)));
    // The answer to the first frame is ok before dialling; a refusal comes as an error frame.
    const outcomes = await Promise.all(
      clients.map((client) =>
        Promise.race([
          client.waitForOutput(/[#$] $/m).then(() => 'opened'),
          client.closed.then(() =>
            client.frames
              .filter((frame) => frame.type === T.error)
              .map((frame) => frame.payload)
              .join(),
          ),
        ]),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'opened')).toHaveLength(4);
    const refusals = outcomes.filter((outcome) => outcome !== 'opened');
    expect(refusals).toHaveLength(3);
    for (const refusal of refusals) {
      expect(refusal).toMatch(/too many connections opened at once: try again in \d+ s/);
    }

    const other = await open(bob);
    expect(other.response.status).toBe('ok');
    await other.waitForOutput(/[#$] $/m);

    const rejected = await app.audit.search({
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 1000),
      eventTypes: ['session.rejected'],
      limit: 100,
    });
    const reasons = rejected.events.filter((e) => e.user === 'alice').map((e) => e.reason);
    expect(reasons).toHaveLength(3);
    expect(String(reasons[0])).toMatch(/too many connections/);
    for (const client of [...clients, other]) client.close();
  }, 60_000);
});
