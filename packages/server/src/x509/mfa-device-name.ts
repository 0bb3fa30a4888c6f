/**
 * The MFA devices behind an X.509 certificate issued on a login's strength (`postern kube login`,
 * `postern db login`), carried as subject alternative name URIs so that an `mfa_device` lock
 * reaches them as it reaches the SSH certificate's extensions: the device the login was proven
 * with, and on a certificate issued after a per-session check, the device that answered it.
 */
const uriSchemes = {
  login: 'postern-mfa-device:',
  session: 'postern-session-mfa-device:',
} as const;
export type MfaDeviceRole = keyof typeof uriSchemes;

const deviceIdPattern = /^[0-9a-f-]{36}$/;

/** The alternative name naming `deviceId`, for `SubjectAlternativeNameExtension`. */
export function mfaDeviceAltName(
  deviceId: string,
  role: MfaDeviceRole = 'login',
): { type: 'url'; value: string } {
  return { type: 'url', value: `${uriSchemes[role]}${deviceId}` };
}

/**
 * The device named among a peer certificate's alternative names (`subjectaltname` split on
 * `, `), if one is there and well formed.
 */
export function mfaDeviceOfAltNames(
  names: readonly string[],
  role: MfaDeviceRole = 'login',
): string | undefined {
  const prefix = `URI:${uriSchemes[role]}`;
  return names
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .find((id) => deviceIdPattern.test(id));
}
