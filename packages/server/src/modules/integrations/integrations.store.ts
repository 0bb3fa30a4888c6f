import type { IntegrationType } from '@postern/contracts';
import { ApiError, notFound } from '../../errors.js';
import { deleteIfPresent, RevisionedStore, type Backend } from '../../backend/index.js';

export const integrationsPrefix = '/integrations/';
export const integrationStatusPrefix = '/integration_status/';

/** The secrets an integration may hold; each is sealed (secret-box.ts) before it is stored. */
export const secretFields = ['url', 'signingSecret', 'password'] as const;
export type SecretField = (typeof secretFields)[number];

/**
 * An integration as stored under `/integrations/<name>`. `settings` holds only what may be shown
 * (the generic webhook's URL, the SMTP host…); every secret is in `sealed`, as ciphertext.
 */
export interface IntegrationResource {
  kind: 'integration';
  version: 'v1';
  metadata: { name: string; revision?: string };
  spec: {
    type: IntegrationType;
    settings: Record<string, unknown>;
    sealed: Partial<Record<SecretField, string>>;
    createdBy: string;
    created: string;
  };
}

export const integrationNotFound = (name: string) => notFound(`integration ${name} not found`);

/** Integrations, revisioned so that two admins editing one at once cannot undo each other. */
export class IntegrationsStore extends RevisionedStore<IntegrationResource> {
  constructor(backend: Backend) {
    super(backend, {
      prefix: integrationsPrefix,
      keyOf: (name) => name,
      refOf: (integration) => integration.metadata.name,
      revisionInMetadata: true,
      // The contracts' rule; other names never reach the backend (no `/` tricks in a key).
      isRef: (name) => /^[a-z0-9][a-z0-9-]{0,63}$/.test(name),
      errors: {
        notFound: integrationNotFound,
        alreadyExists: (name) =>
          new ApiError('already_exists', `integration ${name} already exists`),
        changedMeanwhile: (name) =>
          new ApiError('compare_failed', `integration ${name} changed meanwhile: reload it`),
      },
    });
  }
}

/** How an integration's deliveries went, as the Integrations screen shows it. */
export interface DeliveryStatus {
  state: 'ok' | 'failing' | 'unused';
  /** RFC 3339 of the last attempt; empty before the first. */
  lastDelivery: string;
  lastError: string;
  /** Deliveries of the writing proxy that wait for a retry. */
  pending: number;
}

export const unusedStatus: DeliveryStatus = Object.freeze({
  state: 'unused',
  lastDelivery: '',
  lastError: '',
  pending: 0,
});

/**
 * Delivery status under its own prefix, `/integration_status/<name>`, so that every proxy on the
 * backend shows what any of them delivered, and a status write never bumps the revision an
 * admin's edit of the integration compares against.
 */
export class IntegrationStatusStore {
  constructor(private readonly backend: Backend) {}

  async get(name: string): Promise<DeliveryStatus> {
    const item = await this.backend.get(integrationStatusPrefix + name);
    return item ? (JSON.parse(item.value) as DeliveryStatus) : unusedStatus;
  }

  async all(): Promise<Map<string, DeliveryStatus>> {
    const { items } = await this.backend.list({ prefix: integrationStatusPrefix });
    return new Map(
      items.map((item) => [
        item.key.slice(integrationStatusPrefix.length),
        JSON.parse(item.value) as DeliveryStatus,
      ]),
    );
  }

  async put(name: string, status: DeliveryStatus): Promise<void> {
    await this.backend.upsert({
      key: integrationStatusPrefix + name,
      value: JSON.stringify(status),
    });
  }

  /** Forgets the status of a removed integration; one never written is fine. */
  async delete(name: string): Promise<void> {
    await deleteIfPresent(this.backend, integrationStatusPrefix + name);
  }
}
