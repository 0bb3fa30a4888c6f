/**
 * The MFA device a login was proven with, carried by the X.509 certificates issued on its strength
 * (`postern kube login`, `postern db login`) as a subject alternative name URI, so that an
 * `mfa_device` lock reaches them as it reaches the SSH certificate's extension.
 */
const mfaDeviceUriScheme = 'postern-mfa-device:';
const deviceIdPattern = /^[0-9a-f-]{36}$/;

/** The alternative name naming `deviceId`, for `SubjectAlternativeNameExtension`. */
export function mfaDeviceAltName(deviceId: string): { type: 'url'; value: string } {
  return { type: 'url', value: `${mfaDeviceUriScheme}${deviceId}` };
}

/**
 * The device named among a peer certificate's alternative names (`subjectaltname` split on
 * `, `), if one is there and well formed.
 */
export function mfaDeviceOfAltNames(names: readonly string[]): string | undefined {
  const prefix = `URI:${mfaDeviceUriScheme}`;
  return names
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .find((id) => deviceIdPattern.test(id));
}
