import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import type { HostPort } from '../../config/address.js';
import type { UserResource } from '../../identity/users/users.store.js';
import type { AuditStore } from '../audit/index.js';
import type { DeliveryOptions } from './delivery.js';
import { IntegrationsService } from './integrations.service.js';
import { IntegrationsStore, IntegrationStatusStore } from './integrations.store.js';
import { SecretBox } from './secret-box.js';
import { UrlGuard } from './url-guard.js';

export { IntegrationsService } from './integrations.service.js';
export type { AccessRequestNotice, RequestNotifier } from './notice.js';

export interface IntegrationsDeps {
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  /** The watched users (`platform.access.users`), for each reviewer's e-mail address. */
  users: { get(name: string): UserResource | undefined };
  /** The listeners' bound addresses (`platform.addresses`), which integrations may not target. */
  addresses: { all(): HostPort[]; publicBaseUrl(): string };
  onError: (error: unknown) => void;
  delivery?: DeliveryOptions;
}

/** The integrations service over the backend, as the platform builds it once per process. */
export function buildIntegrations(deps: IntegrationsDeps): IntegrationsService {
  const { backend, audit, now, users, addresses, onError, delivery } = deps;
  return new IntegrationsService({
    store: new IntegrationsStore(backend),
    status: new IntegrationStatusStore(backend),
    box: SecretBox.forBackend(backend),
    guard: new UrlGuard({ ownEndpoints: () => addresses.all() }),
    audit,
    now,
    emailOf: (user) => emailOf(users.get(user), user),
    consoleUrl: () => `${addresses.publicBaseUrl()}/web`,
    onError,
    ...(delivery ? { delivery } : {}),
  });
}

/** The user's `email` trait, else the name itself when it is an address (SSO users often are). */
export function emailOf(user: UserResource | undefined, name: string): string | undefined {
  const trait = user?.spec.traits.email?.find((value) => value.includes('@'));
  return trait ?? (name.includes('@') ? name : undefined);
}
