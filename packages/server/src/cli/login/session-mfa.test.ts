import { describe, expect, it } from 'vitest';
import { reusedAnswer } from './session-mfa.js';

describe('reusedAnswer', () => {
  it('keeps a certificate 45 s, shares one question among connections that come together', async () => {
    let clock = 0;
    const asked: number[] = [];
    const next = reusedAnswer(
      async () => {
        asked.push(clock);
        return `cert-${asked.length}`;
      },
      () => clock,
    );
    expect(await Promise.all([next(), next(), next()])).toEqual(['cert-1', 'cert-1', 'cert-1']);
    clock = 44_999;
    expect(await next()).toBe('cert-1');
    clock = 45_000;
    expect(await next()).toBe('cert-2');
    expect(asked).toEqual([0, 45_000]);
  });

  it('asks again after 45 s when none was needed, so a role asking for MFA counts', async () => {
    let clock = 0;
    let required = false;
    let calls = 0;
    const next = reusedAnswer(
      async () => {
        calls += 1;
        return required ? 'session-cert' : undefined;
      },
      () => clock,
    );
    expect(await next()).toBeUndefined();
    required = true; // the user's roles change under a running `postern proxy db`
    clock = 10_000;
    expect(await next()).toBeUndefined();
    clock = 45_000;
    expect(await next()).toBe('session-cert');
    expect(calls).toBe(2);
  });

  it('asks again after a failed question', async () => {
    let fail = true;
    const next = reusedAnswer(
      async () => {
        if (fail) throw new Error('invalid authenticator code');
        return 'cert';
      },
      () => 0,
    );
    await expect(next()).rejects.toThrow(/invalid authenticator code/);
    fail = false;
    expect(await next()).toBe('cert');
  });
});
