import { describe, expect, it } from 'vitest';
import { rewriteSetCookie } from './set-cookie-rewrite.js';

describe('rewriteSetCookie', () => {
  it('drops Domain, in any case and spacing, and keeps every other attribute as written', () => {
    expect(
      rewriteSetCookie('sid=a=b; domain=.internal; Path=/; HttpOnly; SameSite=Lax; Max-Age=60', ''),
    ).toBe('sid=a=b; Path=/; HttpOnly; SameSite=Lax; Max-Age=60');
    expect(rewriteSetCookie('sid=1;DOMAIN = grafana.internal ;Secure', '')).toBe('sid=1;Secure');
  });

  it('moves a Path under the base path up by the base', () => {
    expect(rewriteSetCookie('sid=1; Path=/base/api; HttpOnly', '/base')).toBe(
      'sid=1; Path=/api; HttpOnly',
    );
    expect(rewriteSetCookie('sid=1; path=/base', '/base')).toBe('sid=1; Path=/');
    expect(rewriteSetCookie('sid=1; Path=/base/', '/base')).toBe('sid=1; Path=/');
  });

  it('leaves a Path outside the base, or any Path when the base is the root', () => {
    expect(rewriteSetCookie('sid=1; Path=/basement', '/base')).toBe('sid=1; Path=/basement');
    expect(rewriteSetCookie('sid=1; Path=/other', '/base')).toBe('sid=1; Path=/other');
    expect(rewriteSetCookie('sid=1; Path=/base', '')).toBe('sid=1; Path=/base');
  });

  it('keeps a cookie with no attributes as it is', () => {
    expect(rewriteSetCookie('theme=dark', '/base')).toBe('theme=dark');
  });
});
