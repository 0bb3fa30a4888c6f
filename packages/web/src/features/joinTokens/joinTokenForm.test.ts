import { internalResourceIdLabel } from '@postern/contracts';
import { describe, expect, it } from 'vitest';
import {
  creatableRoles,
  expiresText,
  joinTokenRequest,
  parseLabelLines,
  ttlLabel,
} from './joinTokenForm';

const now = Date.parse('2026-11-29T08:00:00.000Z');
const at = (ms: number) => new Date(now + ms);
const minute = 60_000;

describe('expiresText', () => {
  it('counts whole units left, rounded down', () => {
    expect(expiresText(at(25.9 * minute), now)).toBe('in 25 minutes');
    expect(expiresText(at(1 * minute), now)).toBe('in 1 minute');
    expect(expiresText(at(90 * minute), now)).toBe('in 90 minutes');
    expect(expiresText(at(5.5 * 60 * minute), now)).toBe('in 5 hours');
    expect(expiresText(at(7 * 24 * 60 * minute), now)).toBe('in 7 days');
  });

  it('says when less than a minute is left, and when it has passed', () => {
    expect(expiresText(at(30_000), now)).toBe('in less than a minute');
    expect(expiresText(at(0), now)).toBe('expired');
    expect(expiresText(at(-minute), now)).toBe('expired');
  });
});

describe('ttlLabel', () => {
  it('reads the suggested TTLs', () => {
    expect(['15m', '30m', '1h', '8h', '24h', '168h'].map(ttlLabel)).toEqual([
      '15 minutes',
      '30 minutes',
      '1 hour',
      '8 hours',
      '24 hours',
      '7 days',
    ]);
  });
});

describe('parseLabelLines', () => {
  it('reads name=value lines, the value trimmed and possibly empty', () => {
    expect(parseLabelLines(['env=prod', ' team = web ', 'spare=', 'url=a=b'])).toEqual({
      labels: { env: 'prod', team: 'web', spare: '', url: 'a=b' },
    });
  });

  it.each([
    ['prod', /'prod' is not name=value/],
    ['=prod', /has no label name/],
    ['a b=c', /'a b' is not a label name/],
    [`${internalResourceIdLabel}=x`, /set by the server itself/],
  ])('refuses %j', (line, message) => {
    expect(parseLabelLines([line]).error).toMatch(message);
  });

  it('refuses a name given twice', () => {
    expect(parseLabelLines(['env=a', 'env=b']).error).toBe("the label 'env' is given twice");
  });
});

describe('joinTokenRequest', () => {
  it('builds the API request: token join method, labels as a record, the TTL', () => {
    expect(joinTokenRequest({ roles: ['Node', 'Db'], labels: ['env=prod'], ttl: '8h' })).toEqual({
      request: {
        roles: ['Node', 'Db'],
        join_method: 'token',
        suggested_agent_matcher_labels: { env: 'prod' },
        ttl: '8h',
      },
      errors: {},
    });
  });

  it('names each field’s problem', () => {
    const { errors } = joinTokenRequest({ roles: [], labels: ['x'], ttl: '' });
    expect(errors).toEqual({
      roles: 'name at least one role',
      labels: "'x' is not name=value, such as env=prod",
      ttl: 'choose how long the token lasts',
    });
  });

  it('never offers Trusted_cluster (a leaf cluster’s token is made on Trusted Clusters)', () => {
    expect(creatableRoles).toEqual(['Node', 'App', 'Db', 'Kube', 'WindowsDesktop']);
  });
});
