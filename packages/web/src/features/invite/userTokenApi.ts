import {
  apiPaths,
  registerChallengeSchema,
  userTokenDetailsSchema,
  type CompleteUserTokenRequest,
  type DeviceUsage,
  type UserTokenDetails,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { encodePassword } from '../../lib/password';
import { browserWebauthn, createCredential, type WebauthnClient } from '../../lib/webauthn';

/** Invite and reset links (spec §7 "Admin", reference notes §1.12). */
export async function fetchUserToken(
  tokenId: string,
  signal?: AbortSignal,
): Promise<UserTokenDetails> {
  const url = apiPaths.userToken(tokenId);
  return decode(userTokenDetailsSchema, await api.get(url, { signal }), url);
}

/** How the new account proves its second factor, if at all. */
export type NewCredential =
  | { kind: 'otp'; code: string }
  | { kind: 'webauthn'; usage: DeviceUsage; deviceName: string }
  | { kind: 'none' };

export interface CompleteUserToken {
  tokenId: string;
  /** Null for a passwordless account (a passkey only). */
  password: string | null;
  credential: NewCredential;
}

/** A WebAuthn registration challenge for the link's user: `mfa/token/{id}/registerchallenge`. */
export async function registerChallenge(
  tokenId: string,
  deviceType: 'totp' | 'webauthn',
  deviceUsage: DeviceUsage,
) {
  const url = apiPaths.mfaTokenRegisterChallenge(tokenId);
  return decode(registerChallengeSchema, await api.post(url, { deviceType, deviceUsage }), url);
}

/**
 * Sets the password and registers the second factor in one `PUT users/password/token`, which
 * also signs the user in (the server sets the session cookie).
 */
export async function completeUserToken(
  request: CompleteUserToken,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<void> {
  const { tokenId, password, credential } = request;
  const body: CompleteUserTokenRequest = {
    token: tokenId,
    password: password === null ? null : encodePassword(password),
  };
  if (credential.kind === 'otp') body.second_factor_token = credential.code.trim();
  if (credential.kind === 'webauthn') {
    const challenge = await registerChallenge(tokenId, 'webauthn', credential.usage);
    const created = await createCredential(challenge.webauthn?.publicKey, webauthn);
    Object.assign(body, {
      webauthnCreationResponse: created,
      deviceName: credential.deviceName.trim(),
    });
  }
  await api.put(apiPaths.userTokens, body);
}
