import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { renderWithTheme } from '../../test/render';
import { ClustersView } from './ClustersView';
import { clusterFixtures } from './fixtures';
import { makeClusters, publicHref } from './makeCluster';

describe('makeClusters', () => {
  it('maps wire fields to the console model, sorted by name', () => {
    const [leaf, root] = makeClusters(clusterFixtures);
    expect(root).toMatchObject({
      clusterId: 'root.example.com',
      connectedText: '2024-03-01 10:20:30',
      url: '/web/cluster/root.example.com',
      nodeCount: 3,
      publicURL: 'root.example.com:3080',
      proxyVersion: '0.1.0',
    });
    expect(leaf).toMatchObject({
      clusterId: 'leaf-a',
      connectedText: '',
      lastConnected: undefined,
    });
  });
});

describe('publicHref', () => {
  const here = { protocol: 'http:', host: 'localhost:3080' };

  it('reaches a bare host:port with https, or with this page’s scheme when it is this page', () => {
    expect(publicHref('proxy.example.com:3080', here)).toBe('https://proxy.example.com:3080/');
    expect(publicHref('localhost:3080', here)).toBe('http://localhost:3080/');
    expect(publicHref('proxy.example.com', { protocol: 'https:', host: 'x' })).toBe(
      'https://proxy.example.com/',
    );
  });

  it('keeps an http(s) URL as it is', () => {
    expect(publicHref('http://proxy.example.com:8080/web', here)).toBe(
      'http://proxy.example.com:8080/web',
    );
    expect(publicHref(' HTTPS://Proxy.Example.com ', here)).toBe('https://proxy.example.com/');
  });

  it('makes no link of anything else', () => {
    for (const value of [
      '',
      '   ',
      'javascript:alert(1)',
      'javascript://%0aalert(1)',
      'data:text/html,hi',
      'ftp://files.example.com',
      'tcp://db.example.com:5432',
      'https://user:secret@proxy.example.com',
      'proxy example com',
    ]) {
      expect(publicHref(value, here), value).toBeUndefined();
    }
  });
});

/** The view links each name to its cluster, so it renders inside a router. */
const renderView = (ui: ReactElement) => renderWithTheme(<MemoryRouter>{ui}</MemoryRouter>);

describe('ClustersView', () => {
  it('lists clusters with name, status, nodes, version, public URL and last connected', () => {
    renderView(
      <ClustersView
        attempt={{ status: 'success', data: makeClusters(clusterFixtures) }}
        onRetry={vi.fn()}
      />,
    );
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Name', 'Status', 'Nodes', 'Version', 'Public URL', 'Last Connected']);
    // The name opens the cluster's resources (a leaf's through this proxy).
    expect(screen.getByRole('link', { name: 'leaf-a' }).getAttribute('href')).toBe(
      '/web/cluster/leaf-a',
    );
    const root = screen.getByText('root.example.com').closest('tr');
    expect(root).not.toBeNull();
    const cells = within(root as HTMLElement)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells).toEqual([
      'root.example.com',
      'online',
      '3',
      '0.1.0',
      'root.example.com:3080',
      '2024-03-01 10:20:30',
    ]);
  });

  it('shows the public URL as a link to a new tab, and a non-http one as text', () => {
    const [leaf, root] = makeClusters(clusterFixtures, { protocol: 'https:', host: 'other' });
    const odd = { ...leaf!, clusterId: 'odd', publicURL: 'tcp://odd:1', publicHref: undefined };
    renderView(
      <ClustersView attempt={{ status: 'success', data: [root!, odd] }} onRetry={vi.fn()} />,
    );
    const link = screen.getByRole('link', { name: 'root.example.com:3080' });
    expect(link.getAttribute('href')).toBe('https://root.example.com:3080/');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(screen.getByText('tcp://odd:1').closest('a')).toBeNull();
  });

  it('shows a loader while loading', () => {
    renderView(<ClustersView attempt={{ status: 'loading' }} onRetry={vi.fn()} />);
    expect(screen.getByRole('status', { name: 'Loading' })).toBeTruthy();
  });

  it('shows the error message with a retry', async () => {
    const onRetry = vi.fn();
    renderView(
      <ClustersView attempt={{ status: 'error', message: 'access denied' }} onRetry={onRetry} />,
    );
    expect(within(screen.getByRole('alert')).getByText('access denied')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it('says so when there are no clusters', () => {
    renderView(<ClustersView attempt={{ status: 'success', data: [] }} onRetry={vi.fn()} />);
    expect(screen.getByText('No clusters found.')).toBeTruthy();
  });
});
