import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { auditEventFixtures } from './fixtures';
import { useAuditLog } from './useAuditLog';

afterEach(() => vi.unstubAllGlobals());

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

const search = {
  from: new Date('2026-11-01T00:00:00Z'),
  to: new Date('2026-11-21T00:00:00Z'),
  types: [],
  search: '',
};

describe('useAuditLog', () => {
  it('reaches past 10,000 events: three full server pages and the rest', async () => {
    // Pages of 5000 chained by startKey 'p1', 'p2', 'p3'; the last one has 7 events.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const key = new URL(url, 'http://x').searchParams.get('startKey') ?? '';
        const index = key ? Number(key.slice(1)) : 0;
        return index < 3
          ? jsonResponse({
              events: auditEventFixtures(5000, index * 5000),
              startKey: `p${index + 1}`,
            })
          : jsonResponse({ events: auditEventFixtures(7, 15_000), startKey: '' });
      }),
    );
    const { result } = renderHook(() => useAuditLog('root', search), { wrapper });
    await waitFor(() => expect(result.current.events).toHaveLength(5000));
    for (const loaded of [10_000, 15_000, 15_007]) {
      act(() => result.current.loadMore());
      await waitFor(() => expect(result.current.events).toHaveLength(loaded));
    }
    expect(result.current.hasMore).toBe(false);
    expect(result.current.events!.at(-1)!.uid).toBe('u15006');
  });

  it('fetches nothing without a complete range', () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const { result } = renderHook(() => useAuditLog('root', undefined), { wrapper });
    expect(result.current.events).toBeUndefined();
    expect(fetch).not.toHaveBeenCalled();
  });
});
