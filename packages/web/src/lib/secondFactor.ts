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
