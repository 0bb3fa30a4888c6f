import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { MfaChallenge } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { WebauthnClient } from '../lib/webauthn';
import { renderWithTheme } from '../test/render';
import { SessionMfaDialog } from './SessionMfaDialog';

const keyChallenge: MfaChallenge = {
  webauthn_challenge: { publicKey: { challenge: 'c2Vzc2lvbg', rpId: 'localhost' } },
  totp_challenge: true,
};

function renderDialog(challenge: MfaChallenge, webauthn?: Partial<WebauthnClient>) {
  const reply = { answer: vi.fn(), cancel: vi.fn() };
  const client: WebauthnClient = {
    supported: () => true,
    authenticate: vi.fn(async () => ({ id: 'key-1' }) as never),
    register: vi.fn(),
    ...webauthn,
  };
  renderWithTheme(<SessionMfaDialog challenge={challenge} reply={reply} webauthn={client} />);
  return { user: userEvent.setup(), reply, client };
}

describe('SessionMfaDialog', () => {
  it('answers with the key’s assertion for the challenge it was given', async () => {
    const { user, reply, client } = renderDialog(keyChallenge);
    expect(screen.getByRole('dialog', { name: 'Verify it is you' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(client.authenticate).toHaveBeenCalledWith(keyChallenge.webauthn_challenge!.publicKey);
    expect(reply.answer).toHaveBeenCalledWith({ webauthn_response: { id: 'key-1' } });
  });

  it('keeps the dialog when the browser gives no credential, so the user may try again', async () => {
    const { user, reply } = renderDialog(keyChallenge, {
      authenticate: async () => Promise.reject(new Error('NotAllowedError')),
    });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/error obtaining credential/);
    expect(reply.answer).not.toHaveBeenCalled();
  });

  it('takes a code instead when the user chooses their app, and checks its shape', async () => {
    const { user, reply } = renderDialog(keyChallenge);
    await user.click(screen.getByRole('radio', { name: 'Authenticator app' }));
    await user.type(screen.getByLabelText('Authenticator code'), '12ab');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(screen.getByText('Enter the 6-digit code from your app')).toBeTruthy();
    await user.clear(screen.getByLabelText('Authenticator code'));
    await user.type(screen.getByLabelText('Authenticator code'), '654321');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(reply.answer).toHaveBeenCalledWith({ totp_code: '654321' });
  });

  it('offers only a code to a user with no key, and cancelling gives the session up', async () => {
    const { user, reply } = renderDialog({ totp_challenge: true });
    expect(screen.queryByRole('radio')).toBeNull();
    expect(screen.getByLabelText('Authenticator code')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(reply.cancel).toHaveBeenCalled();
  });
});
