import type { RunningPostern } from './postern-process.js';

// The server every spec shares (global-setup.ts starts it), and the cluster name every Postern
// the specs start takes.

export const cluster = 'e2e-cluster';

/** The shared server, for its admin commands (they only need its data dir). */
export const shared = () => ({ dataDir: process.env.POSTERN_E2E_DATA_DIR! }) as RunningPostern;

/** A web API path under the cluster's site: `/v1/webapi/sites/e2e-cluster/<rest>`. */
export const siteApi = (rest: string) => `/v1/webapi/sites/${cluster}/${rest}`;
