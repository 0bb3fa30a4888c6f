import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, TargetRefusedError, UrlGuard } from './url-guard.js';

const guard = new UrlGuard({
  ownEndpoints: () => [
    { host: '0.0.0.0', port: 3080 },
    { host: '10.0.0.5', port: 3023 },
  ],
  hostAddresses: () => ['127.0.0.1', '::1', '10.0.0.5'],
});

describe('URL guard', () => {
  it("refuses the proxy's own listeners on any address of this host", () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '0.0.0.0',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '10.0.0.5',
    ]) {
      expect(guard.refusal(address, 3080), address).toMatch(/own listener/);
    }
    expect(guard.refusal('10.0.0.5', 3023)).toMatch(/own listener/);
  });

  it('allows other ports on loopback, and other hosts on our ports', () => {
    expect(guard.refusal('127.0.0.1', 8080)).toBeUndefined();
    expect(guard.refusal('::1', 25)).toBeUndefined();
    expect(guard.refusal('10.0.0.6', 3080)).toBeUndefined();
    expect(guard.refusal('203.0.113.7', 443)).toBeUndefined();
  });

  it('refuses link-local addresses in every spelling, and the IPv6 metadata address', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      'fe80::1',
      '[fe80::1]',
      'fd00:ec2::254',
    ]) {
      expect(guard.refusal(address, 80), address).toMatch(/link-local/);
    }
  });

  it('checks what a name resolves to, at save time and at connect time', async () => {
    await expect(guard.check('localhost', 3080)).rejects.toBeInstanceOf(TargetRefusedError);
    await expect(guard.check('localhost', 8080)).resolves.toBeUndefined();
    const lookup = guard.lookupFor(3080);
    const error = await new Promise<unknown>((resolve) =>
      (lookup as unknown as (h: string, o: object, cb: (e: unknown) => void) => void)(
        'localhost',
        {},
        resolve,
      ),
    );
    expect(error).toBeInstanceOf(TargetRefusedError);
    expect(() => guard.checkLiteral('[::1]', 3080)).toThrow(TargetRefusedError);
    expect(() => guard.checkLiteral('example.com', 3080)).not.toThrow();
  });

  it('tells loopback apart', async () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('10.0.0.5')).toBe(false);
    expect(await guard.isLoopback('localhost')).toBe(true);
    expect(await guard.isLoopback('10.1.2.3')).toBe(false);
  });
});
