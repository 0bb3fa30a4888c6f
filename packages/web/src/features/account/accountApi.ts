import {
  apiPaths,
  mfaChallengeSchema,
  mfaDeviceListSchema,
  registerChallengeSchema,
  type DeviceUsage,
  type MfaDevice,
} from '@postern/contracts';
import { api, decode } from '../../api';
import { encodePassword } from '../../lib/password';
import {
  browserWebauthn,
  createCredential,
  getAssertion,
  type WebauthnClient,
} from '../../lib/webauthn';

/** The calls of Account Settings (spec §7, reference notes §1.12–1.13). */

export async function fetchMfaDevices(signal?: AbortSignal): Promise<MfaDevice[]> {
  return decode(
    mfaDeviceListSchema,
    await api.get(apiPaths.mfaDevices, { signal }),
    apiPaths.mfaDevices,
  );
}

/** How the user proves it is them: a code, a hardware key, or nothing (no devices yet). */
export type SecondFactorAnswer =
  { kind: 'otp'; code: string } | { kind: 'webauthn' } | { kind: 'none' };

export interface ChangePassword {
  oldPassword: string;
  newPassword: string;
  secondFactor: SecondFactorAnswer;
}

/** `PUT users/password`; a hardware key signs the challenge of `mfa/authenticatechallenge/password`. */
export async function changePassword(
  request: ChangePassword,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<void> {
  const { oldPassword, newPassword, secondFactor } = request;
  const body: Record<string, unknown> = {
    old_password: encodePassword(oldPassword),
    new_password: encodePassword(newPassword),
  };
  if (secondFactor.kind === 'otp') body.second_factor_token = secondFactor.code.trim();
  if (secondFactor.kind === 'webauthn') {
    const url = apiPaths.mfaAuthenticateChallengePassword;
    const json = await api.post(url, { pass: encodePassword(oldPassword) });
    const challenge = decode(mfaChallengeSchema, json, url);
    body.webauthnAssertionResponse = await getAssertion(
      challenge.webauthn_challenge?.publicKey,
      webauthn,
    );
  }
  await api.put(apiPaths.changePassword, body);
}

/**
 * Re-authentication for a privilege token (5 minutes), which adding or removing a device needs:
 * `POST users/privilege/token` answers with the token as a bare JSON string.
 */
export async function createPrivilegeToken(
  answer: SecondFactorAnswer,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<string> {
  let body: Record<string, unknown> = {};
  if (answer.kind === 'otp') body = { secondFactorToken: answer.code.trim() };
  if (answer.kind === 'webauthn') {
    const url = apiPaths.mfaAuthenticateChallenge;
    const challenge = decode(mfaChallengeSchema, await api.post(url, {}), url);
    body = {
      webauthnAssertionResponse: await getAssertion(
        challenge.webauthn_challenge?.publicKey,
        webauthn,
      ),
    };
  }
  const token = await api.post(apiPaths.privilegeToken, body);
  if (typeof token !== 'string' || token === '') {
    throw new Error(`Unexpected response from ${apiPaths.privilegeToken}`);
  }
  return token;
}

/** An authenticator app's enrolment for a new device: the QR code and the secret. */
export async function fetchTotpChallenge(privilegeToken: string) {
  const url = apiPaths.mfaTokenRegisterChallenge(privilegeToken);
  const challenge = decode(
    registerChallengeSchema,
    await api.post(url, { deviceType: 'totp', deviceUsage: 'mfa' }),
    url,
  );
  if (!challenge.totp) throw new Error(`Unexpected response from ${url}`);
  return challenge.totp;
}

export type NewDevice =
  | { kind: 'otp'; deviceName: string; code: string }
  | { kind: 'webauthn'; deviceName: string; usage: DeviceUsage };

/** `POST mfa/devices`, after a WebAuthn registration when the device is a key or passkey. */
export async function addMfaDevice(
  privilegeToken: string,
  device: NewDevice,
  webauthn: WebauthnClient = browserWebauthn,
): Promise<void> {
  const base = { tokenId: privilegeToken, deviceName: device.deviceName.trim() };
  if (device.kind === 'otp') {
    await api.post(apiPaths.mfaDevices, {
      ...base,
      deviceUsage: 'mfa',
      secondFactorToken: device.code.trim(),
    });
    return;
  }
  const url = apiPaths.mfaTokenRegisterChallenge(privilegeToken);
  const challenge = decode(
    registerChallengeSchema,
    await api.post(url, { deviceType: 'webauthn', deviceUsage: device.usage }),
    url,
  );
  const created = await createCredential(challenge.webauthn?.publicKey, webauthn);
  await api.post(apiPaths.mfaDevices, {
    ...base,
    deviceUsage: device.usage,
    webauthnRegisterResponse: created,
  });
}

/** `DELETE mfa/token/{token}/devices/{name}`; the server refuses the last one when MFA is required. */
export async function removeMfaDevice(privilegeToken: string, deviceName: string): Promise<void> {
  await api.delete(apiPaths.mfaTokenDevice(privilegeToken, deviceName));
}
