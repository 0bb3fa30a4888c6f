import type { PublicKeyOptionsJson } from '@postern/contracts';
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';

/**
 * Hardware keys and passkeys (WebAuthn) with the error texts of spec §5. The server sends options
 * as JSON with base64url buffers and takes the browser's JSON answer back; @simplewebauthn/browser
 * does the conversions around `navigator.credentials`.
 */
export const webauthnErrors = {
  unsupported:
    'this browser does not support Webauthn required for hardware tokens, please try the latest version of Chrome, Firefox or Safari',
  noAssertion: 'error obtaining credential, please try again',
  noCredential: 'error creating credential, please try again',
} as const;

export type WebauthnAssertionJson = AuthenticationResponseJSON;
export type WebauthnCreationJson = RegistrationResponseJSON;

/** What the console needs from the browser; tests pass a fake. */
export interface WebauthnClient {
  supported(): boolean;
  authenticate(options: PublicKeyOptionsJson): Promise<WebauthnAssertionJson>;
  register(options: PublicKeyOptionsJson): Promise<WebauthnCreationJson>;
}

export const browserWebauthn: WebauthnClient = {
  supported: () => browserSupportsWebAuthn(),
  authenticate: (options) =>
    startAuthentication({
      optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
    }),
  register: (options) =>
    startRegistration({
      optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
    }),
};

/** Signs the server's challenge with a registered key (login, re-authentication). */
export async function getAssertion(
  options: PublicKeyOptionsJson | undefined,
  client: WebauthnClient = browserWebauthn,
): Promise<WebauthnAssertionJson> {
  if (!client.supported()) throw new Error(webauthnErrors.unsupported);
  if (!options) throw new Error(webauthnErrors.noAssertion);
  try {
    return await client.authenticate(options);
  } catch (err) {
    // Cancelled, timed out, or no matching key: the browser gave no credential.
    console.warn('webauthn assertion failed:', err);
    throw new Error(webauthnErrors.noAssertion);
  }
}

/** Creates a new credential on a key or as a passkey (registration). */
export async function createCredential(
  options: PublicKeyOptionsJson | undefined,
  client: WebauthnClient = browserWebauthn,
): Promise<WebauthnCreationJson> {
  if (!client.supported()) throw new Error(webauthnErrors.unsupported);
  if (!options) throw new Error(webauthnErrors.noCredential);
  try {
    return await client.register(options);
  } catch (err) {
    console.warn('webauthn registration failed:', err);
    throw new Error(webauthnErrors.noCredential);
  }
}
