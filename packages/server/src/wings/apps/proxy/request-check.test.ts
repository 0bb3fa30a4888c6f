import { describe, expect, it } from 'vitest';
import { checkRequest, pathOf } from './request-check.js';

const check = (url: string, headers: Record<string, string> = {}) => checkRequest({ url, headers });

describe('checkRequest', () => {
  it('passes origin-form targets and reads how the body is framed', () => {
    expect(check('/x?y=1')).toEqual({ framing: { kind: 'none' } });
    expect(check('/up', { 'content-length': '12' })).toEqual({
      framing: { kind: 'length', length: '12' },
    });
    expect(check('/up', { 'transfer-encoding': 'Chunked' })).toEqual({
      framing: { kind: 'chunked' },
    });
  });

  it('refuses a body framed by both Content-Length and Transfer-Encoding', () => {
    expect(check('/', { 'content-length': '5', 'transfer-encoding': 'chunked' }).refused).toMatch(
      /both/,
    );
  });

  it('refuses transfer codings other than chunked', () => {
    expect(check('/', { 'transfer-encoding': 'gzip, chunked' }).refused).toMatch(/transfer coding/);
  });

  it('refuses targets that are not a path', () => {
    for (const url of ['http://other/', '*', 'other:80', '']) {
      expect(check(url).refused).toMatch(/must be a path/);
    }
  });

  it('refuses dot segments however they are spelled, in the path only', () => {
    for (const url of [
      '/a/../b',
      '/..',
      '/a/./b',
      '/a/%2e%2E/b',
      '/a/.%2e',
      '/a%2f..%2fb',
      '/a\\..\\b',
      '/a/%5c..',
    ]) {
      expect(check(url).refused).toMatch(/dot segments/);
    }
    for (const url of ['/a/..b/c', '/a/.well-known/x', '/a?next=/../x', '/...']) {
      expect(check(url).refused).toBeUndefined();
    }
  });
});

describe('pathOf', () => {
  it('is the target without its query', () => {
    expect(pathOf('/a/b?c=d?e')).toBe('/a/b');
    expect(pathOf('/a')).toBe('/a');
  });
});
