import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAuth } from './auth-config.js';
import { ConfigError, resolveConfig } from './config.js';
import { formatDuration, parseDuration } from './duration.js';

describe('auth settings', () => {
  it('have the documented defaults', () => {
    expect(resolveAuth(undefined, 'Proxy.Example.com')).toEqual({
      secondFactor: 'on',
      rpId: 'proxy.example.com',
      allowPasswordless: true,
      localConnectorName: '',
      motd: '',
      sessionTtlMs: 12 * 3600_000,
      idleTimeoutMs: 0,
      bearerTtlMs: 600_000,
      lockout: { maxFailures: 5, windowMs: 30 * 60_000, durationMs: 20 * 60_000 },
      loginRateLimit: 30,
      lockingMode: 'best_effort',
    });
    expect(resolveAuth({ second_factor: 'otp' }, 'h').allowPasswordless).toBe(false);
    expect(resolveAuth({ second_factor: 'off' }, 'h').allowPasswordless).toBe(false);
  });

  it('are read from the auth section of the config file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-auth-'));
    try {
      const file = path.join(dir, 'c.yaml');
      await writeFile(
        file,
        `auth:
  second_factor: webauthn
  webauthn: {rp_id: localhost}
  local_connector_name: passwordless
  motd: "Authorized use only"
  session_ttl: 8h
  idle_timeout: 30m
  bearer_ttl: 20s
  lockout: {max_failures: 3, window: 10m, duration: 90}
  login_rate_limit: 10
  locking_mode: strict
`,
      );
      expect(resolveConfig({ config: file }).auth).toEqual({
        secondFactor: 'webauthn',
        rpId: 'localhost',
        allowPasswordless: true,
        localConnectorName: 'passwordless',
        motd: 'Authorized use only',
        sessionTtlMs: 8 * 3600_000,
        idleTimeoutMs: 30 * 60_000,
        bearerTtlMs: 20_000,
        lockout: { maxFailures: 3, windowMs: 600_000, durationMs: 90_000 },
        loginRateLimit: 10,
        lockingMode: 'strict',
      });
      await writeFile(file, 'auth: {second_factor: sometimes}\n');
      expect(() => resolveConfig({ config: file })).toThrow(/auth\.second_factor/);
      await writeFile(file, 'auth: {locking_mode: paranoid}\n');
      expect(() => resolveConfig({ config: file })).toThrow(/auth\.locking_mode/);
      await writeFile(file, 'auth: {sesion_ttl: 1h}\n');
      expect(() => resolveConfig({ config: file })).toThrow(/sesion_ttl/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuse combinations that cannot work', () => {
    expect(() => resolveAuth({ second_factor: 'otp', allow_passwordless: true }, 'h')).toThrow(
      /allow_passwordless needs/,
    );
    expect(() =>
      resolveAuth({ allow_passwordless: false, local_connector_name: 'passwordless' }, 'h'),
    ).toThrow(ConfigError);
    expect(() => resolveAuth({ bearer_ttl: '1s' }, 'h')).toThrow(/bearer_ttl/);
    expect(() => resolveAuth({ session_ttl: 'forever' }, 'h')).toThrow(
      /auth.session_ttl must be a duration/,
    );
  });
});

describe('durations', () => {
  it('read units, combinations and plain seconds', () => {
    expect(parseDuration('12h', 'x')).toBe(43_200_000);
    expect(parseDuration('1h30m', 'x')).toBe(5_400_000);
    expect(parseDuration('90s', 'x')).toBe(90_000);
    expect(parseDuration('250ms', 'x')).toBe(250);
    expect(parseDuration(90, 'x')).toBe(90_000);
    expect(parseDuration('45', 'x')).toBe(45_000);
    for (const bad of ['', '1d', 'h', '1h 30m', '-5s'])
      expect(() => parseDuration(bad, 'x')).toThrow(ConfigError);
    expect(formatDuration(48 * 3600_000)).toBe('48h');
    expect(formatDuration(90_000)).toBe('90s');
  });
});
