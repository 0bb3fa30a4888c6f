import { authConfigSchema, type AuthConfig } from '@postern/contracts';
import type { Config } from '../../config/config.js';

/**
 * The auth settings the console and clients see. Issue 3 makes them configurable (`auth.*`);
 * until then the defaults stand: local sign-in with a required second factor.
 */
export function authPreferences(_config: Config): AuthConfig {
  return authConfigSchema.parse({ second_factor: 'on', localAuthEnabled: true });
}
