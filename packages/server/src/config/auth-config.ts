import { secondFactorTypes, type SecondFactorType } from '@postern/contracts';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { parseDuration } from './duration.js';

const duration = z.union([z.string(), z.number()]);

/** The `auth:` section of the config file. See docs/configuration.md. */
export const authFileSchema = z
  .object({
    second_factor: z.enum(secondFactorTypes).optional(),
    webauthn: z
      .object({
        rp_id: z
          .string()
          .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, 'must be a lower-case host name'),
      })
      .strict()
      .optional(),
    allow_passwordless: z.boolean().optional(),
    local_connector_name: z.string().max(255).optional(),
    motd: z.string().max(8192).optional(),
    session_ttl: duration.optional(),
    idle_timeout: duration.optional(),
    bearer_ttl: duration.optional(),
    lockout: z
      .object({
        max_failures: z.number().int().min(0).optional(),
        window: duration.optional(),
        duration: duration.optional(),
      })
      .strict()
      .optional(),
    login_rate_limit: z.number().int().min(1).optional(),
    locking_mode: z.enum(['best_effort', 'strict']).optional(),
  })
  .strict();
export type AuthFileConfig = z.infer<typeof authFileSchema>;

/** How people sign in: the resolved `auth:` section. Durations are milliseconds. */
export interface AuthSettings {
  secondFactor: SecondFactorType;
  /** The WebAuthn relying-party id: a host name the browser's origin must be within. */
  rpId: string;
  allowPasswordless: boolean;
  localConnectorName: string;
  motd: string;
  sessionTtlMs: number;
  /** 0 means sessions never end for inactivity. */
  idleTimeoutMs: number;
  bearerTtlMs: number;
  /** max_failures 0 turns lockout off. */
  lockout: { maxFailures: number; windowMs: number; durationMs: number };
  /** Login calls per minute per client address. */
  loginRateLimit: number;
  /** The cluster's `lock` for roles that do not set it (the reference's `locking_mode`). */
  lockingMode: 'best_effort' | 'strict';
}

/** Second-factor modes under which a WebAuthn device may be registered and used. */
export const webauthnAllowed = (mode: SecondFactorType) => mode !== 'off' && mode !== 'otp';
export const totpAllowed = (mode: SecondFactorType) => mode !== 'off' && mode !== 'webauthn';

export function resolveAuth(file: AuthFileConfig | undefined, publicHost: string): AuthSettings {
  const auth = file ?? {};
  const secondFactor = auth.second_factor ?? 'on';
  const allowPasswordless = auth.allow_passwordless ?? webauthnAllowed(secondFactor);
  if (allowPasswordless && !webauthnAllowed(secondFactor)) {
    throw new ConfigError(
      `auth.allow_passwordless needs auth.second_factor webauthn, on or optional (it is ${secondFactor})`,
    );
  }
  const localConnectorName = auth.local_connector_name ?? '';
  if (localConnectorName === 'passwordless' && !allowPasswordless) {
    throw new ConfigError(
      "auth.local_connector_name 'passwordless' needs auth.allow_passwordless: true",
    );
  }
  const sessionTtlMs = parseDuration(auth.session_ttl ?? '12h', 'auth.session_ttl');
  const bearerTtlMs = parseDuration(auth.bearer_ttl ?? '10m', 'auth.bearer_ttl');
  if (sessionTtlMs < 60_000) throw new ConfigError('auth.session_ttl must be at least 1m');
  if (bearerTtlMs < 5000) throw new ConfigError('auth.bearer_ttl must be at least 5s');
  return {
    secondFactor,
    rpId: auth.webauthn?.rp_id ?? publicHost.toLowerCase(),
    allowPasswordless,
    localConnectorName,
    motd: auth.motd ?? '',
    sessionTtlMs,
    idleTimeoutMs: parseDuration(auth.idle_timeout ?? 0, 'auth.idle_timeout'),
    bearerTtlMs,
    lockout: {
      maxFailures: auth.lockout?.max_failures ?? 5,
      windowMs: parseDuration(auth.lockout?.window ?? '30m', 'auth.lockout.window'),
      durationMs: parseDuration(auth.lockout?.duration ?? '20m', 'auth.lockout.duration'),
    },
    loginRateLimit: auth.login_rate_limit ?? 30,
    lockingMode: auth.locking_mode ?? 'best_effort',
  };
}
