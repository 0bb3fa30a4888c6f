import type { BrowserContext, Page } from '@playwright/test';

export interface VirtualAuthenticator {
  id: string;
  credentials(): Promise<
    { credentialId: string; isResidentCredential: boolean; userHandle?: string }[]
  >;
  remove(): Promise<void>;
}

/**
 * A real WebAuthn authenticator inside Chromium (CDP `WebAuthn` domain): the page's
 * navigator.credentials calls talk to it exactly as to a hardware key, and it answers presence
 * and user-verification checks by itself.
 */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
  options: { residentKey?: boolean } = {},
): Promise<VirtualAuthenticator> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: options.residentKey ? 'internal' : 'usb',
      hasResidentKey: options.residentKey ?? false,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    id: authenticatorId,
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
    async remove() {
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    },
  };
}
