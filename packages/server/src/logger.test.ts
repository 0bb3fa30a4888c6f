import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.js';
import { createTestApp, type TestApp } from './testing/app-harness.testkit.js';
import { b64, inviteUser, loginWithTotp, sessionHeaders } from './testing/identity.testkit.js';

const lines: string[] = [];
let app: TestApp;
beforeAll(async () => {
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  app = await createTestApp({ logger });
});
afterAll(() => app.close());

describe('logs', () => {
  it('never carry session ids, bearers, invite links, passwords or TOTP secrets', async () => {
    await app.services.users.create({ name: 'lena', roles: ['access'] }, 'test');
    const { tokenId } = await app.services.tokens.create('lena', 'invite', undefined, 'test');
    const user = await inviteUser(app, 'lou');
    const login = await loginWithTotp(app, user);
    const headers = sessionHeaders(app, login);
    const renewed = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web/renew',
      headers,
      payload: {},
    });
    await app.server.inject({ url: `/v1/webapi/users/password/token/${tokenId}` });
    await app.server.inject({ url: `/web/invite/${tokenId}` });
    await app.server.inject({ url: '/web', headers: { cookie: headers.cookie! } });
    await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: sessionHeaders(app, renewed),
    });

    const text = lines.join('');
    expect(text).toContain('/v1/webapi/sessions/web/renew');
    expect(text).toContain('/web/invite/[redacted]');
    const secrets = [
      tokenId,
      user.totpSecret!,
      user.password!,
      b64(user.password!),
      user.session.token,
      login.json().token,
      renewed.json().token,
      ...[user.headers, headers].map((each) => /__Host-session=(\w+)/.exec(each.cookie!)![1]!),
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('redact token segments of request URLs', () => {
    expect(redactUrl('/web/invite/abc123/continue?x=1')).toBe(
      '/web/invite/[redacted]/continue?x=1',
    );
    expect(redactUrl('/v1/webapi/users/password/token/abc')).toBe(
      '/v1/webapi/users/password/token/[redacted]',
    );
    expect(redactUrl('/v1/webapi/mfa/token/abc/devices/key')).toBe(
      '/v1/webapi/mfa/token/[redacted]/devices/key',
    );
    expect(redactUrl('/v1/webapi/sites')).toBe('/v1/webapi/sites');
  });
});
