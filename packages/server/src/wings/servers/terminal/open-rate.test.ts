import { terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../../testing/terminal-fixture.testkit.js';
import { openRateLimiter } from './open-rate.js';

describe('openRateLimiter', () => {
  it('allows the burst at once, then the rate, per user', () => {
    let now = 0;
    const limiter = openRateLimiter({ burst: 3, perSecond: 2 }, () => now);
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
  let fixture: TerminalFixture;

  beforeAll(async () => {
    fixture = await startTerminalFixture({ sessionOpenLimit: { burst: 4, perSecond: 0.1 } });
  }, 60_000);

  afterAll(() => fixture?.close());

  it('refuses the opens above the burst with a readable reason, audited; others are not held back', async () => {
    const { app, open } = fixture;
    const alice = await app.signIn([fixture.role], 'alice');
    const bob = await app.signIn([fixture.role], 'bob');
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
