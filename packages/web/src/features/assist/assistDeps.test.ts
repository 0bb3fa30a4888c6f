import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUuid } from './assistDeps';

afterEach(() => vi.unstubAllGlobals());

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUuid', () => {
  it('makes a version 4 UUID without crypto.randomUUID (a page not served over HTTPS)', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: (a: Uint8Array) => real.getRandomValues(a) });
    const ids = new Set(Array.from({ length: 20 }, randomUuid));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(uuidV4);
  });
});
