import { authConfigSchema, type AuthConfig } from '@postern/contracts';
import type { Config } from '../../config/config.js';

/**
 * The auth settings the console and clients see (spec §3 auth config), from `auth.*`. The
 * preferred local MFA tells the login screen which second factor to offer first.
 */
export function authPreferences(config: Config): AuthConfig {
  const { secondFactor, allowPasswordless, localConnectorName, motd } = config.auth;
  const preferredLocalMfa =
    secondFactor === 'otp' ? 'otp' : secondFactor === 'off' ? '' : 'webauthn';
  return authConfigSchema.parse({
    localAuthEnabled: true,
    allowPasswordless,
    localConnectorName,
    providers: [],
    second_factor: secondFactor,
    authType: 'local',
    preferredLocalMfa,
    privateKeyPolicy: 'none',
    motd,
  });
}
