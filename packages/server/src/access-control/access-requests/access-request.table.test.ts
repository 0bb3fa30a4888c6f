import { describe, expect, it } from 'vitest';
import { decide, effectiveState, type StoredReview } from './access-request.js';

const review = (author: string, state: 'APPROVED' | 'DENIED'): StoredReview => ({
  author,
  state,
  reason: '',
  created: '2026-11-25T00:00:00.000Z',
});
const one = { name: 'default', approve: 1, deny: 1 };
const twoApprovers = { name: 'two', approve: 2, deny: 1 };
const twoDenials = { name: 'lenient', approve: 1, deny: 2 };

describe('decide: what the reviews so far make of a request', () => {
  it.each([
    ['no review waits', { editor: [one] }, [], 'PENDING'],
    ['one approval meets the default', { editor: [one] }, [review('bob', 'APPROVED')], 'APPROVED'],
    ['one denial meets the default', { editor: [one] }, [review('bob', 'DENIED')], 'DENIED'],
    [
      'two approvers required: one waits',
      { editor: [twoApprovers] },
      [review('bob', 'APPROVED')],
      'PENDING',
    ],
    [
      'two approvers required: two approve',
      { editor: [twoApprovers] },
      [review('bob', 'APPROVED'), review('carol', 'APPROVED')],
      'APPROVED',
    ],
    [
      'the same reviewer twice counts once',
      { editor: [twoApprovers] },
      [review('bob', 'APPROVED'), review('bob', 'APPROVED')],
      'PENDING',
    ],
    [
      'one denial wins over an approval',
      { editor: [twoApprovers] },
      [review('bob', 'APPROVED'), review('carol', 'DENIED')],
      'DENIED',
    ],
    [
      'a reviewer who changes their mind counts by their first review',
      { editor: [one] },
      [review('bob', 'APPROVED'), review('bob', 'DENIED')],
      'APPROVED',
    ],
    [
      'two denials needed: one denial waits',
      { editor: [twoDenials] },
      [review('bob', 'DENIED')],
      'PENDING',
    ],
    [
      'every requested role must be approved',
      { editor: [one], auditor: [twoApprovers] },
      [review('bob', 'APPROVED')],
      'PENDING',
    ],
    [
      'any threshold of a role suffices',
      { editor: [twoApprovers, one] },
      [review('bob', 'APPROVED')],
      'APPROVED',
    ],
  ] as const)('%s', (_name, thresholds, reviews, expected) => {
    expect(decide(thresholds, reviews)).toBe(expected);
  });
});

describe('effectiveState', () => {
  const at = (state: 'PENDING' | 'APPROVED' | 'DENIED') => ({
    kind: 'access_request' as const,
    version: 'v3' as const,
    metadata: { name: 'x' },
    spec: {
      user: 'alice',
      roles: ['editor'],
      resources: [],
      reason: '',
      state,
      created: '2026-11-25T00:00:00.000Z',
      requestExpires: '2026-11-25T01:00:00.000Z',
      accessExpires: '2026-11-25T02:00:00.000Z',
      suggestedReviewers: [],
      thresholds: {},
      reviews: [],
      resolveReason: '',
    },
  });
  const t = (iso: string) => Date.parse(iso);
  it('expires a pending request at its request expiry and an approved one at its access end', () => {
    expect(effectiveState(at('PENDING'), t('2026-11-25T00:59:59Z'))).toBe('PENDING');
    expect(effectiveState(at('PENDING'), t('2026-11-25T01:00:00Z'))).toBe('EXPIRED');
    expect(effectiveState(at('APPROVED'), t('2026-11-25T01:30:00Z'))).toBe('APPROVED');
    expect(effectiveState(at('APPROVED'), t('2026-11-25T02:00:00Z'))).toBe('EXPIRED');
    expect(effectiveState(at('DENIED'), t('2026-11-26T00:00:00Z'))).toBe('DENIED');
  });
});
