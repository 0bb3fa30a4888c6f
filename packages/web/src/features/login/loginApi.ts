import {
  apiPaths,
  mfaChallengeSchema,
  type CreateSessionRequest,
  type MfaLoginBeginRequest,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { encodePassword } from '../../lib/password';
import { browserWebauthn, getAssertion, type WebauthnClient } from '../../lib/webauthn';

/**
 * The sign-in calls (spec §7, reference notes §1.2). Each resolves once the server has set the
 * session cookie; the caller then reloads the page, so the response bodies are not used.
 */
export interface Credentials {
  user: string;
  password: string;
}

/** `POST sessions/web`: password plus an authenticator code ('' when none is needed). */
export async function signInWithPassword(credentials: Credentials, code: string): Promise<void> {
  const body: CreateSessionRequest = {
    user: credentials.user,
    pass: encodePassword(credentials.password),
    second_factor_token: code,
  };
  await api.post(apiPaths.webSession, body);
}

async function beginWebauthn(body: MfaLoginBeginRequest) {
  const json = await api.post(apiPaths.mfaLoginBegin, body);
  return decode(mfaChallengeSchema, json, apiPaths.mfaLoginBegin);
}

async function finishWebauthn(
  user: string,
  options: Record<string, unknown> | undefined,
  webauthn: WebauthnClient,
) {
  const assertion = await getAssertion(options, webauthn);
  await api.post(apiPaths.mfaLoginFinishSession, { user, webauthnAssertionResponse: assertion });
}

/** Password, then a hardware key: `mfa/login/begin` → the key signs → `mfa/login/finishsession`. */
export async function signInWithHardwareKey(
  credentials: Credentials,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<void> {
  const challenge = await beginWebauthn({
    user: credentials.user,
    pass: encodePassword(credentials.password),
  });
  await finishWebauthn(credentials.user, challenge.webauthn_challenge?.publicKey, webauthn);
}

/** A passkey alone: a discoverable credential names the user, so `user` is empty. */
export async function signInWithPasskey(webauthn: WebauthnClient = browserWebauthn): Promise<void> {
  const challenge = await beginWebauthn({ passwordless: true });
  await finishWebauthn('', challenge.webauthn_challenge?.publicKey, webauthn);
}
