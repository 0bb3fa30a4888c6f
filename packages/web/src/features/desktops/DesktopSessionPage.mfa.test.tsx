import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import {
  firstSocket,
  renderWithDeps,
  sockets,
  installDesktopSessionFakes,
} from './desktopSession.testkit';
import { rfbInstances } from './fakeRfb';

// The desktop session page when the roles ask for an MFA check before each session.

vi.mock('@novnc/novnc', () => import('./fakeRfb'));
installDesktopSessionFakes();

describe('the desktop session’s per-session MFA check', () => {
  it('asks for the per-session MFA check the server wants, and connects again with the answer', async () => {
    const mfaChallenge = vi.fn(async () => ({ totp_challenge: true }));
    renderWithDeps({ mfaChallenge }, false);
    const first = await firstSocket();
    act(() => first.open());
    act(() =>
      first.receiveText(
        JSON.stringify({
          type: 'create_session_response',
          status: 'error',
          message:
            'your roles require an MFA check for each session (require_session_mfa): pass one for this desktop first',
          code: 'mfa_required',
        }),
      ),
    );
    await screen.findByRole('dialog', { name: 'Verify it is you' });
    expect(mfaChallenge).toHaveBeenCalledWith('desktop:build-box');
    await userEvent.type(screen.getByLabelText('Authenticator code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(sockets).toHaveLength(2));
    const second = sockets[1]!;
    act(() => second.open());
    expect(second.sent).toEqual([
      JSON.stringify({ token: 'bearer-tok', mfa_response: { totp_code: '123456' } }),
    ]);
    act(() => second.accept());
    act(() => rfbInstances[0]!.emit('connect'));
    await screen.findByText('Connected');
  });
});
