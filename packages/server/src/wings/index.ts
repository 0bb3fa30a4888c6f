import { appsWing } from './apps/index.js';
import { databasesWing } from './databases/index.js';
import { desktopsWing } from './desktops/index.js';
import { kubernetesWing } from './kubernetes/index.js';
import { serversWing } from './servers/index.js';

/**
 * The access protocols this server speaks. Adding one is a folder under wings/ that exports a
 * Wing (wing.ts) and one line here; docs/ARCHITECTURE.md, "Adding an access protocol".
 */
export const wings = [serversWing, appsWing, databasesWing, kubernetesWing, desktopsWing] as const;

export type { Wing } from './wing.js';
