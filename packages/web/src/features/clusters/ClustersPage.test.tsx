import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { ClustersPage } from './ClustersPage';
import { clusterFixtures } from './fixtures';

function renderPage() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return renderWithTheme(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <ClustersPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

afterEach(() => vi.unstubAllGlobals());

describe('ClustersPage (hook + view, stubbed fetch)', () => {
  it('loads GET /v1/webapi/sites and renders the rows', async () => {
    const fetchStub = vi.fn(async () => json(clusterFixtures));
    vi.stubGlobal('fetch', fetchStub);
    renderPage();
    expect(await screen.findByText('root.example.com')).toBeTruthy();
    expect(fetchStub).toHaveBeenCalledWith(
      '/v1/webapi/sites',
      expect.objectContaining({ method: 'GET' }),
    );
  });

  it('shows the ApiError message and retries on request', async () => {
    const fetchStub = vi
      .fn()
      .mockResolvedValueOnce(
        json(
          { error: { message: 'access denied', code: 'access_denied' }, message: 'access denied' },
          403,
        ),
      )
      .mockResolvedValueOnce(json(clusterFixtures));
    vi.stubGlobal('fetch', fetchStub);
    renderPage();
    expect(await screen.findByText('access denied')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('leaf-a')).toBeTruthy();
  });
});
