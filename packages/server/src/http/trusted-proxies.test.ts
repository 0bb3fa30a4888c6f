import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';

// Behind an HTTP load balancer every request comes from its address; trusted_proxies makes
// X-Forwarded-For name the client, so one client's failures do not lock out everyone.
let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The status of a failed CLI sign-in that says it came from `client` through a balancer. */
async function signIn(forwardedFor: string) {
  const answer = await app!.server.inject({
    method: 'POST',
    url: '/v1/webapi/ssh/certs',
    remoteAddress: '127.0.0.1',
    headers: { 'x-forwarded-for': forwardedFor },
    payload: { user: 'nobody', password: 'wrong-password', pub_key: '' },
  });
  return answer.statusCode;
}

describe('trusted_proxies', () => {
  it('from a trusted balancer, the sign-in limit counts each forwarded client on its own', async () => {
    app = await createTestApp({ auth: { login_rate_limit: 2 }, trustedProxies: ['127.0.0.0/8'] });
    expect(await signIn('203.0.113.7')).not.toBe(429);
    expect(await signIn('203.0.113.7')).not.toBe(429);
    expect(await signIn('203.0.113.7')).toBe(429);
    expect(await signIn('198.51.100.4')).not.toBe(429);
  });

  it('without it, a forged X-Forwarded-For changes nothing: the limit is the sender’s', async () => {
    app = await createTestApp({ auth: { login_rate_limit: 2 } });
    expect(await signIn('203.0.113.7')).not.toBe(429);
    expect(await signIn('198.51.100.4')).not.toBe(429);
    expect(await signIn('192.0.2.1')).toBe(429);
  });
});
