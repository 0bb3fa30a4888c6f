import { clientConfigGlobal, clientConfigSchema, type ClientConfig } from '@postern/contracts';
import { createContext, useContext } from 'react';

/**
 * The server's client configuration: `/web/config.js` (loaded before the app) sets
 * `window.GRV_CONFIG`. A missing or malformed config falls back to the spec's defaults, so the
 * console still starts (and shows its own errors) rather than a blank page.
 */
export function readClientConfig(source: unknown): ClientConfig {
  const parsed = clientConfigSchema.safeParse(source ?? {});
  if (parsed.success) return parsed.data;
  console.warn(`invalid ${clientConfigGlobal}, using defaults:`, parsed.error.message);
  return clientConfigSchema.parse({});
}

export function readWindowConfig(win: Window = window): ClientConfig {
  return readClientConfig((win as unknown as Record<string, unknown>)[clientConfigGlobal]);
}

export const ClientConfigContext = createContext<ClientConfig | null>(null);

export function useClientConfig(): ClientConfig {
  const config = useContext(ClientConfigContext);
  if (!config) throw new Error('useClientConfig needs a ClientConfigContext provider');
  return config;
}
