import { describe, expect, it, vi } from 'vitest';
import { createCredential, getAssertion, webauthnErrors, type WebauthnClient } from './webauthn';

const options = { challenge: 'abc', rpId: 'localhost' };

function client(overrides: Partial<WebauthnClient> = {}): WebauthnClient {
  return {
    supported: () => true,
    authenticate: vi.fn(async () => ({ id: 'cred' }) as never),
    register: vi.fn(async () => ({ id: 'new-cred' }) as never),
    ...overrides,
  };
}

describe('WebAuthn errors (spec §5)', () => {
  it('names the browsers to try when WebAuthn is missing', async () => {
    const unsupported = client({ supported: () => false });
    await expect(getAssertion(options, unsupported)).rejects.toThrow(
      'this browser does not support Webauthn required for hardware tokens, please try the latest version of Chrome, Firefox or Safari',
    );
    await expect(createCredential(options, unsupported)).rejects.toThrow(
      webauthnErrors.unsupported,
    );
  });

  it('reports a missing assertion as "error obtaining credential"', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const cancelled = client({
      authenticate: async () => Promise.reject(new DOMException('cancelled', 'NotAllowedError')),
    });
    await expect(getAssertion(options, cancelled)).rejects.toThrow(
      'error obtaining credential, please try again',
    );
    await expect(getAssertion(undefined, client())).rejects.toThrow(webauthnErrors.noAssertion);
    vi.restoreAllMocks();
  });

  it('reports a missing new credential as "error creating credential"', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const failing = client({ register: async () => Promise.reject(new Error('timeout')) });
    await expect(createCredential(options, failing)).rejects.toThrow(
      'error creating credential, please try again',
    );
    vi.restoreAllMocks();
  });

  it('passes the server options through and returns the browser JSON', async () => {
    const c = client();
    await expect(getAssertion(options, c)).resolves.toEqual({ id: 'cred' });
    expect(c.authenticate).toHaveBeenCalledWith(options);
    await expect(createCredential(options, c)).resolves.toEqual({ id: 'new-cred' });
  });
});
