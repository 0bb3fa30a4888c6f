import { existsSync } from 'node:fs';
import { openBackend, type Backend } from '../backend/index.js';
import { ConfigError, resolveConfig, type Config, type ConfigFlags } from '../config/config.js';
import { publicBaseUrl } from '../config/public-url.js';
import { buildIdentity, type IdentityServices } from '../identity.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import { recordedPublicUrl } from '../modules/bootstrap/first-admin.js';

/** What an admin command works with: the same storage and services a running server uses. */
export interface AdminContext {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  identity: IdentityServices;
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
  const audit = await openAuditStore(config.audit, config.clusterName);
  const identity = buildIdentity({ config, backend, audit });
  const baseUrl = (await recordedPublicUrl(backend)) ?? publicBaseUrl(config);
  return {
    config,
    backend,
    audit,
    identity,
    baseUrl,
    async close() {
      await audit.close();
      await backend.close();
    },
  };
}
