import { z } from 'zod';

/** Second-factor policy: spec §3 auth config, DESIGN "Security model". */
export const secondFactorTypes = ['off', 'otp', 'webauthn', 'on', 'optional'] as const;
export type SecondFactorType = (typeof secondFactorTypes)[number];

export const authProviderSchema = z.object({
  name: z.string(),
  displayName: z.string().optional(),
  type: z.enum(['oidc', 'saml', 'github']),
  url: z.string(),
});
export type AuthProvider = z.infer<typeof authProviderSchema>;

/** Auth configuration as the console sees it (spec §3), with the spec's defaults. */
export const authConfigSchema = z.object({
  localAuthEnabled: z.boolean().default(true),
  allowPasswordless: z.boolean().default(false),
  localConnectorName: z.string().default(''),
  providers: z.array(authProviderSchema).default([]),
  second_factor: z.enum(secondFactorTypes).default('off'),
  authType: z.enum(['local', 'oidc', 'saml', 'github']).default('local'),
  preferredLocalMfa: z.enum(['', 'otp', 'webauthn']).default(''),
  privateKeyPolicy: z.string().default('none'),
  motd: z.string().default(''),
});
export type AuthConfig = z.infer<typeof authConfigSchema>;

/**
 * The client configuration the server writes into `/web/config.js` as `GRV_CONFIG` (spec §3).
 * Every field has the spec's default, so a partial object from the server still parses.
 */
export const clientConfigSchema = z.object({
  isEnterprise: z.boolean().default(false),
  isCloud: z.boolean().default(false),
  assistEnabled: z.boolean().default(false),
  automaticUpgrades: z.boolean().default(false),
  isDashboard: z.boolean().default(false),
  tunnelPublicAddress: z.string().default(''),
  recoveryCodesEnabled: z.boolean().default(false),
  isUsageBasedBilling: z.boolean().default(false),
  configDir: z.string().default('$HOME/.postern'),
  baseUrl: z.string().default(''),
  proxyCluster: z.string().default('localhost'),
  canJoinSessions: z.boolean().default(true),
  ui: z
    .object({
      scrollbackLines: z.number().int().positive().default(1000),
      /** `file_transfer.max_bytes`: the console refuses a larger upload before sending it. */
      fileTransferMaxBytes: z
        .number()
        .int()
        .positive()
        .default(1024 ** 3),
    })
    .prefault({}),
  loc: z
    .object({
      dateTimeFormat: z.string().default('YYYY-MM-DD HH:mm:ss'),
      dateFormat: z.string().default('YYYY-MM-DD'),
    })
    .prefault({}),
  auth: authConfigSchema.prefault({}),
});
export type ClientConfig = z.infer<typeof clientConfigSchema>;
export type ClientConfigInput = z.input<typeof clientConfigSchema>;

/** The global the server's `/web/config.js` assigns. */
export const clientConfigGlobal = 'GRV_CONFIG';
