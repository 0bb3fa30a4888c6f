import type { AuthConfig } from '@postern/contracts';

/**
 * Which second factors the cluster's `second_factor` setting offers (spec §3 auth config), for
 * signing in and for registering a device. 'none' is only ever offered when MFA is optional.
 */
export type MfaMethod = 'otp' | 'webauthn' | 'none';

export const mfaMethodLabels: Record<MfaMethod, string> = {
  otp: 'Authenticator app',
  webauthn: 'Hardware key',
  none: 'None',
};

export function mfaMethodsFor(secondFactor: AuthConfig['second_factor']): MfaMethod[] {
  switch (secondFactor) {
    case 'off':
      return ['none'];
    case 'otp':
      return ['otp'];
    case 'webauthn':
      return ['webauthn'];
    case 'on':
      return ['otp', 'webauthn'];
    case 'optional':
      return ['otp', 'webauthn', 'none'];
  }
}

/** The method shown first: the cluster's preferred one when offered, else the first offered. */
export function defaultMfaMethod(methods: MfaMethod[], preferred: AuthConfig['preferredLocalMfa']) {
  const first = methods[0] ?? 'none';
  return preferred && methods.includes(preferred) ? preferred : first;
}

/**
 * The method the sign-in form starts with: the one this browser last signed in with, when the
 * cluster still offers it; otherwise the authenticator app when the cluster allows both kinds;
 * otherwise the default above.
 */
export function signInMfaMethod(
  methods: MfaMethod[],
  preferred: AuthConfig['preferredLocalMfa'],
  lastUsed: MfaMethod | undefined,
): MfaMethod {
  if (lastUsed && methods.includes(lastUsed)) return lastUsed;
  if (methods.includes('otp') && methods.includes('webauthn')) return 'otp';
  return defaultMfaMethod(methods, preferred);
}
