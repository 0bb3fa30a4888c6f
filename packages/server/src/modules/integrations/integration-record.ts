import type { IntegrationJson, IntegrationType, integrationInputSchema } from '@postern/contracts';
import type { z } from 'zod';
import { badParameter } from '../../errors.js';
import type { OpenedIntegration } from './formats/types.js';
import {
  secretFields,
  type DeliveryStatus,
  type IntegrationResource,
  type SecretField,
} from './integrations.store.js';
import { sealContext, type SecretBox } from './secret-box.js';
import { urlPort } from './url-guard.js';

/** The create or update body, parsed (defaults applied). */
export type IntegrationSpec = z.output<typeof integrationInputSchema>;

/**
 * The secret settings of each type. The generic webhook's URL is not one (its requests are
 * signed); a chat webhook's URL is, since it alone lets anyone post into the channel.
 */
const secretsOf: Record<IntegrationType, readonly SecretField[]> = {
  webhook: ['signingSecret'],
  slack: ['url'],
  mattermost: ['url'],
  email: ['password'],
};

/** Secrets a new integration of the type must be given (SMTP may need no login). */
const requiredOf: Record<IntegrationType, readonly SecretField[]> = {
  webhook: ['signingSecret'],
  slack: ['url'],
  mattermost: ['url'],
  email: [],
};

/** What a save must check with the URL guard: the target host and port, if one was given. */
export function targetOf(spec: IntegrationSpec): { host: string; port: number } | undefined {
  if (spec.type === 'email') return { host: spec.settings.host, port: spec.settings.port };
  if (!spec.settings.url) return undefined;
  const url = new URL(spec.settings.url);
  return { host: url.hostname, port: urlPort(url) };
}

/**
 * The stored form of a spec: public settings apart, secrets sealed. A secret left out of an
 * update keeps the stored one, so the console can save other fields without ever seeing it.
 */
export async function toResource(
  spec: IntegrationSpec,
  previous: IntegrationResource | null,
  box: SecretBox,
  meta: { createdBy: string; created: string },
): Promise<IntegrationResource> {
  const given = spec.settings as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(given)) {
    if (!(secretsOf[spec.type] as readonly string[]).includes(field) && value !== undefined) {
      settings[field] = value;
    }
  }
  const sealed: IntegrationResource['spec']['sealed'] = {};
  for (const field of secretsOf[spec.type]) {
    const value = given[field];
    const kept = previous?.spec.sealed[field];
    if (typeof value === 'string')
      sealed[field] = await box.seal(value, sealContext(spec.name, field));
    else if (kept) sealed[field] = kept;
    else if (requiredOf[spec.type].includes(field))
      throw badParameter(`settings.${field}: required`);
  }
  if (spec.type === 'webhook') {
    settings.url ??= previous?.spec.settings.url;
    if (!settings.url) throw badParameter('settings.url: required');
  }
  if (spec.type === 'slack' || spec.type === 'mattermost') {
    // The host of the secret URL is what the console may show of it.
    if (typeof given.url === 'string') settings.host = new URL(given.url).host;
    else settings.host = previous?.spec.settings.host ?? '';
  }
  return {
    kind: 'integration',
    version: 'v1',
    metadata: { name: spec.name },
    spec: { type: spec.type, settings, sealed, ...meta },
  };
}

/** The API's view: no secret, only which are set. */
export function integrationJson(
  resource: IntegrationResource,
  status: DeliveryStatus,
): IntegrationJson {
  const { spec } = resource;
  return {
    name: resource.metadata.name,
    type: spec.type,
    settings: { ...spec.settings },
    secretsSet: secretFields.filter((field) => spec.sealed[field] !== undefined),
    status: { ...status },
    createdBy: spec.createdBy,
    created: spec.created,
  };
}

/** The integration with its secrets opened, for one delivery; never stored or returned. */
export async function openIntegration(
  resource: IntegrationResource,
  box: SecretBox,
): Promise<OpenedIntegration> {
  const { name } = resource.metadata;
  const secrets: OpenedIntegration['secrets'] = {};
  for (const field of secretFields) {
    const sealed = resource.spec.sealed[field];
    if (sealed) secrets[field] = await box.open(sealed, sealContext(name, field));
  }
  return { name, type: resource.spec.type, settings: resource.spec.settings, secrets };
}
