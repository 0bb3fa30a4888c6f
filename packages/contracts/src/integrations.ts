import { z } from 'zod';

/**
 * Integrations that tell reviewers about access requests (spec §1, §2 Manage Integrations and
 * Enroll New Integration; docs/integrations.md). Secrets (a webhook's URL token, its signing key,
 * the SMTP password) are sealed at rest and never returned: the API says only whether one is set.
 */
export const integrationTypes = ['webhook', 'slack', 'mattermost', 'email'] as const;
export type IntegrationType = (typeof integrationTypes)[number];

export const integrationTitles: Readonly<Record<IntegrationType, string>> = {
  webhook: 'Generic webhook',
  slack: 'Slack',
  mattermost: 'Mattermost',
  email: 'Email (SMTP)',
};

const integrationName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(64, 'at most 64 characters')
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and dashes');

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'expected an http:// or https:// URL');

const recipients = z.array(z.string().trim().min(1).max(256)).max(64).default([]);

/** The settings of each type. URL and secrets may be omitted on update to keep the stored ones. */
export const webhookSettingsSchema = z.strictObject({
  url: httpUrl.optional(),
  /** HMAC-SHA256 key for the `X-Postern-Signature` header. */
  signingSecret: z.string().min(16, 'at least 16 characters').max(256).optional(),
});
export const chatSettingsSchema = z.strictObject({
  /** The incoming-webhook URL: a secret, since it alone lets anyone post. */
  url: httpUrl.optional(),
  /** Where to post when the chat lets the webhook choose (Mattermost channel, Slack override). */
  channel: z.string().trim().max(128).optional(),
});
export const emailSettingsSchema = z.strictObject({
  host: z.string().trim().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  /** `starttls` upgrades a plain connection; `tls` connects with TLS; `none` only for loopback. */
  security: z.enum(['starttls', 'tls', 'none']).default('starttls'),
  username: z.string().max(256).default(''),
  password: z.string().max(1024).optional(),
  from: z.string().trim().min(3).max(256),
  /** Recipients when a suggested reviewer has no e-mail trait (`email` in traits or the name). */
  fallbackRecipients: recipients,
});

export const integrationInputSchema = z.discriminatedUnion('type', [
  z.strictObject({
    name: integrationName,
    type: z.literal('webhook'),
    settings: webhookSettingsSchema,
  }),
  z.strictObject({ name: integrationName, type: z.literal('slack'), settings: chatSettingsSchema }),
  z.strictObject({
    name: integrationName,
    type: z.literal('mattermost'),
    settings: chatSettingsSchema,
  }),
  z.strictObject({
    name: integrationName,
    type: z.literal('email'),
    settings: emailSettingsSchema,
  }),
]);
export type IntegrationInput = z.input<typeof integrationInputSchema>;

export const integrationStatuses = ['ok', 'failing', 'unused'] as const;

/** One integration as the API returns it: no secret, only whether each is set. */
export const integrationJsonSchema = z.object({
  name: z.string(),
  type: z.enum(integrationTypes),
  /** Settings without secrets (the URL of a chat webhook is a secret: only its host shows). */
  settings: z.record(z.string(), z.unknown()),
  secretsSet: z.array(z.string()),
  status: z.object({
    state: z.enum(integrationStatuses),
    /** The last delivery: RFC 3339 and its outcome. */
    lastDelivery: z.string(),
    lastError: z.string(),
    /** Deliveries waiting for a retry now. */
    pending: z.number().int(),
  }),
  createdBy: z.string(),
  created: z.string(),
});
export type IntegrationJson = z.infer<typeof integrationJsonSchema>;

export const integrationListSchema = z.object({ items: z.array(integrationJsonSchema) });
