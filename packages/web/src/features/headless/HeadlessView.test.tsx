import type { HeadlessRequestView } from '@postern/contracts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderWithTheme } from '../../test/render';
import { renderPage } from '../../test/renderPage';
import type { WebauthnClient } from '../../lib/webauthn';
import { approveHeadlessRequest } from './headlessApi';
import { HeadlessPage } from './HeadlessPage';
import { HeadlessView } from './HeadlessView';

afterEach(() => vi.unstubAllGlobals());

const now = Date.parse('2026-11-22T10:00:00Z');
const request = (overrides: Partial<HeadlessRequestView> = {}): HeadlessRequestView => ({
  client_ip_address: '203.0.113.7',
  user: 'alice',
  state: 'pending',
  created: '2026-11-22T09:59:00Z',
  expires: '2026-11-22T10:02:00Z',
  ...overrides,
});

function view(data: HeadlessRequestView, extra: { error?: string; pending?: 'accept' } = {}) {
  const handlers = { onApprove: vi.fn(), onReject: vi.fn(), onRetry: vi.fn() };
  renderWithTheme(
    <HeadlessView
      attempt={{ status: 'success', data }}
      pending={extra.pending ?? null}
      error={extra.error ?? null}
      now={now}
      {...handlers}
    />,
  );
  return handlers;
}

describe('HeadlessView', () => {
  it('shows where the request comes from and who it is for, with Approve and Reject', async () => {
    const handlers = view(request());
    expect(screen.getByText(/Someone has initiated a command from/).textContent).toBe(
      'Someone has initiated a command from 203.0.113.7 as alice.',
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Approve' }));
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(handlers.onApprove).toHaveBeenCalledOnce();
    expect(handlers.onReject).toHaveBeenCalledOnce();
  });

  it('shows the outcome once answered, and no buttons', () => {
    view(request({ state: 'approved' }));
    expect(screen.getByRole('status').textContent).toMatch(/approved\. You can close this tab/);
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('says rejected after a rejection', () => {
    view(request({ state: 'denied' }));
    expect(screen.getByRole('status').textContent).toMatch(/rejected/);
  });

  it('says expired once the request can no longer be approved', () => {
    view(request({ expires: '2026-11-22T09:59:59Z' }));
    expect(screen.getByRole('alert').textContent).toMatch(/expired/);
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('shows why an answer failed, and disables the buttons while one is sent', () => {
    view(request(), { error: 'error obtaining credential, please try again', pending: 'accept' });
    expect(screen.getByRole('alert').textContent).toMatch(/error obtaining credential/);
    expect(screen.getByRole('button', { name: 'Reject' })).toHaveProperty('disabled', true);
  });
});

describe('HeadlessPage', () => {
  it('loads the request, rejects it, and shows the result', async () => {
    let state: HeadlessRequestView['state'] = 'pending';
    const calls: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push(`${init?.method ?? 'GET'} ${url} ${String(init?.body ?? '')}`.trim());
        if (url !== '/v1/webapi/headless/abc') return errorResponse(404, 'not found');
        if (init?.method === 'PUT') {
          state = 'denied';
          return jsonResponse({ message: 'ok' });
        }
        // Once answered the CLI may collect it at any moment: the page must not need it again.
        if (state !== 'pending') return errorResponse(404, 'not found');
        return jsonResponse(request({ state, expires: '2999-01-01T00:00:00Z' }));
      }),
    );
    renderPage(<HeadlessPage />, {
      path: '/web/headless/:requestId',
      url: '/web/headless/abc',
    });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reject' }));
    expect((await screen.findByRole('status')).textContent).toMatch(/rejected/);
    expect(calls).toContain('PUT /v1/webapi/headless/abc {"action":"denied"}');
    expect(calls.filter((call) => call.startsWith('GET'))).toHaveLength(1);
  });

  it('shows "not found" for an unknown or foreign request', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => errorResponse(404, 'this headless login request is not found')),
    );
    renderPage(<HeadlessPage />, { path: '/web/headless/:requestId', url: '/web/headless/x' });
    expect((await screen.findByRole('alert')).textContent).toMatch(/not found/);
  });
});

describe('approveHeadlessRequest', () => {
  it('signs the challenge issued for this request and sends accept with the assertion', async () => {
    const bodies: Record<string, unknown> = {};
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        bodies[`${init?.method} ${url}`] = JSON.parse(String(init?.body ?? '{}'));
        if (url === '/v1/webapi/headless/abc/challenge') {
          return jsonResponse({
            webauthn_challenge: { publicKey: { challenge: 'c1' } },
            totp_challenge: false,
          });
        }
        return jsonResponse({ message: 'ok' });
      }),
    );
    const assertion = {
      id: 'k',
      rawId: 'k',
      type: 'public-key',
      response: {},
      clientExtensionResults: {},
    };
    const webauthn: WebauthnClient = {
      supported: () => true,
      authenticate: vi.fn(async () => assertion as never),
      register: vi.fn(),
    };
    await approveHeadlessRequest('abc', webauthn);
    expect(webauthn.authenticate).toHaveBeenCalledWith({ challenge: 'c1' });
    expect(bodies['PUT /v1/webapi/headless/abc']).toEqual({
      action: 'accept',
      webauthnAssertionResponse: assertion,
    });
  });
});
