import { authConfigSchema, type AuthConfig, type AuthProvider } from '@postern/contracts';
import type { Config } from '../../config/config.js';

/**
 * The auth settings the console and clients see (spec §3 auth config), from `auth.*`. The
 * preferred local MFA tells the login screen which second factor to offer first. `providers` are
 * the auth connectors, one login button each.
 */
export function authPreferences(config: Config, providers: AuthProvider[] = []): AuthConfig {
  const { secondFactor, allowPasswordless, localConnectorName, motd } = config.auth;
  const preferredLocalMfa =
    secondFactor === 'otp' ? 'otp' : secondFactor === 'off' ? '' : 'webauthn';
  return authConfigSchema.parse({
    localAuthEnabled: true,
    allowPasswordless,
    localConnectorName,
    providers,
    second_factor: secondFactor,
    authType: 'local',
    preferredLocalMfa,
    privateKeyPolicy: 'none',
    motd,
  });
}
