import { describe, expect, it } from 'vitest';
import { auditDefaultRangeMs, auditExportQuerySchema, auditSearchQuerySchema } from './search.js';

describe('auditSearchQuerySchema', () => {
  it('defaults to the last 30 days, newest first, 5000 per page', () => {
    const before = Date.now();
    const query = auditSearchQuerySchema.parse({});
    expect(query.to.getTime()).toBeGreaterThanOrEqual(before);
    expect(query.to.getTime() - query.from.getTime()).toBe(auditDefaultRangeMs);
    expect(query).toMatchObject({
      limit: 5000,
      order: 'desc',
      startKey: undefined,
      eventTypes: undefined,
    });
  });

  it('takes start and end as aliases of from and to, with from/to winning', () => {
    const aliased = auditSearchQuerySchema.parse({
      start: '2026-01-01T00:00:00Z',
      end: '2026-01-02T00:00:00Z',
    });
    expect(aliased.from.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(aliased.to.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    const both = auditSearchQuerySchema.parse({
      from: '2026-01-01T05:00:00Z',
      start: '2026-01-01T00:00:00Z',
    });
    expect(both.from.toISOString()).toBe('2026-01-01T05:00:00.000Z');
  });

  it('splits include into event types and drops blanks', () => {
    expect(
      auditSearchQuerySchema.parse({ include: 'session.end, user.login,,' }).eventTypes,
    ).toEqual(['session.end', 'user.login']);
    expect(auditSearchQuerySchema.parse({ include: ' , ' }).eventTypes).toBeUndefined();
  });

  it('takes a trimmed text search, drops a blank one and refuses a long one', () => {
    expect(auditSearchQuerySchema.parse({ search: '  alice ' }).search).toBe('alice');
    expect(auditSearchQuerySchema.parse({ search: '   ' }).search).toBeUndefined();
    expect(auditSearchQuerySchema.safeParse({ search: 'x'.repeat(201) }).success).toBe(false);
  });

  it('clamps limits above 5000 to 5000', () => {
    expect(auditSearchQuerySchema.parse({ limit: '5001' }).limit).toBe(5000);
    expect(auditSearchQuerySchema.parse({ limit: '1000000' }).limit).toBe(5000);
    expect(auditSearchQuerySchema.parse({ limit: '20' }).limit).toBe(20);
  });

  it.each([
    { order: 'sideways' },
    { limit: '0' },
    { limit: 'ten' },
    { from: 'nope' },
    { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
  ])('rejects %o', (query) => {
    expect(auditSearchQuerySchema.safeParse(query).success).toBe(false);
  });
});

describe('auditExportQuerySchema', () => {
  it('has no time bounds unless from is given, and reads include and limit as the search does', () => {
    expect(auditExportQuerySchema.parse({})).toEqual({ limit: 5000 });
    expect(
      auditExportQuerySchema.parse({
        from: '2026-11-01T00:00:00Z',
        include: 'user.login, ,session.end',
        limit: '9000',
        startKey: 'abc.def',
      }),
    ).toEqual({
      from: new Date('2026-11-01T00:00:00Z'),
      eventTypes: ['user.login', 'session.end'],
      limit: 5000,
      startKey: 'abc.def',
    });
  });

  it.each([{ from: 'nope' }, { limit: '0' }, { startKey: 'x'.repeat(513) }])('rejects %o', (q) => {
    expect(auditExportQuerySchema.safeParse(q).success).toBe(false);
  });
});
