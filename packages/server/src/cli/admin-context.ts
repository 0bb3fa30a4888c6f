import { existsSync } from 'node:fs';
import {
  buildAccessControl,
  type AccessControlServices,
} from '../access-control/build-access-control.js';
import { openBackend, type Backend } from '../backend/index.js';
import { systemClock } from '../clock.js';
import { ConfigError, resolveConfig, type Config, type ConfigFlags } from '../config/config.js';
import { publicBaseUrl } from '../config/public-url.js';
import { buildIdentity, type IdentityBasics } from '../identity/build-identity.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import { retryingWhileBusy } from '../modules/audit/busy-retry.js';
import { recordedPublicUrl } from '../identity/bootstrap/first-admin.js';
import { LockWatcher } from '../access-control/locks/lock-watcher.js';

/** What an admin command works with: the same storage and services a running server uses. */
export interface AdminContext {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  identity: IdentityBasics;
  access: AccessControlServices;
  /** Base of the links printed: the address the server announced, else the configured one. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Opens the storage named by --config/--data-dir. SQLite and PostgreSQL take a second writer
 * while a server runs on them, so these commands work next to `postern start`.
 */
export async function openAdminContext(flags: ConfigFlags): Promise<AdminContext> {
  const config = resolveConfig(flags);
  if (config.storage.type === 'sqlite' && !existsSync(config.storage.path)) {
    throw new ConfigError(
      `no Postern state at ${config.storage.path}: run 'postern start' first, or pass --data-dir or --config`,
    );
  }
  const backend = await openBackend(config.storage);
  // A server writing its audit file at the same moment is waited out, not failed on.
  const audit = retryingWhileBusy(await openAuditStore(config.audit, config.clusterName));
  // Commands never sign anyone in, so the lock watcher is never started (it refuses if asked).
  const locks = new LockWatcher(backend, systemClock);
  const identity = buildIdentity({ config, backend, audit, locks });
  const access = buildAccessControl({ backend, audit, now: systemClock, identity });
  // A command run before the first start still finds the preset roles (create if missing).
  await access.roles.seedPresets();
  const baseUrl = (await recordedPublicUrl(backend)) ?? publicBaseUrl(config);
  return {
    config,
    backend,
    audit,
    identity,
    access,
    baseUrl,
    async close() {
      await audit.close();
      await backend.close();
    },
  };
}
