import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { supportLinks } from './supportLinks';
import { SupportPage } from './SupportPage';
import { SupportView } from './SupportView';

const info = {
  clusterName: 'root.example.com',
  serverVersion: '0.1.0-dev+abc',
  sshPublicAddr: 'root.example.com:3023',
};

const ping = {
  auth: {},
  proxy: {
    ssh: {
      listen_addr: '0.0.0.0:3023',
      public_addr: 'proxy.example.com:3023',
      tunnel_public_addr: '',
    },
    tls_routing_enabled: false,
  },
  server_version: '1.2.3',
  min_client_version: '1.0.0',
  cluster_name: 'prod',
};

afterEach(() => vi.unstubAllGlobals());

describe('SupportView', () => {
  it('shows cluster name, exact server version, public SSH address and resource links', () => {
    renderWithTheme(
      <SupportView
        attempt={{ status: 'success', data: info }}
        onRetry={vi.fn()}
        links={supportLinks}
      />,
    );
    expect(screen.getByText('Server version')).toBeTruthy();
    expect(screen.getByText('0.1.0-dev+abc')).toBeTruthy();
    expect(screen.getByText('root.example.com')).toBeTruthy();
    expect(screen.getByText('root.example.com:3023')).toBeTruthy();
    const links = screen.getByRole('list', { name: 'Resources' }).querySelectorAll('a');
    expect(links).toHaveLength(supportLinks.length);
    for (const link of links) expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    // Postern's own docs on this proxy, never a third-party page.
    for (const link of links) expect(link.getAttribute('href')).toMatch(/^\/docs\/[A-Za-z-]+\.md$/);
  });

  it('links every document of docs/, so a new one is not left out of Help & Support', () => {
    // The repository's docs/ folder, which the proxy serves at /docs (plugins/docs.ts).
    const files = Object.keys(import.meta.glob('../../../../../docs/*.md')).map(
      (file) => `/docs/${file.split('/').pop()}`,
    );
    expect(files.length).toBeGreaterThan(10);
    expect(supportLinks.map((link) => link.href).sort()).toEqual(files.sort());
  });

  it('keeps the resources visible while the cluster information fails', () => {
    renderWithTheme(
      <SupportView
        attempt={{ status: 'error', message: 'offline' }}
        onRetry={vi.fn()}
        links={supportLinks}
      />,
    );
    expect(screen.getByText('offline')).toBeTruthy();
    expect(screen.getByRole('list', { name: 'Resources' })).toBeTruthy();
  });
});

describe('SupportPage', () => {
  it('reads GET /v1/webapi/ping', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify(ping), { status: 200 })),
    );
    renderWithTheme(
      <QueryClientProvider client={new QueryClient()}>
        <SupportPage />
      </QueryClientProvider>,
    );
    expect(await screen.findByText('1.2.3')).toBeTruthy();
    expect(screen.getByText('prod')).toBeTruthy();
    expect(screen.getByText('proxy.example.com:3023')).toBeTruthy();
  });
});
