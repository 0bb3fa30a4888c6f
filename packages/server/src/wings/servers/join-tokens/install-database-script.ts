import type { installDatabaseQuerySchema } from '@postern/contracts';
import type { z } from 'zod';
import { agentInstallScript } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

/**
 * The bash script `GET /scripts/:token/install-database.sh?name=&uri=` serves: run on a host
 * that reaches the database, it runs `postern agent --db name=uri` (agent-install-script.ts).
 * See docs/databases.md, "Databases behind an agent".
 */
export function installDatabaseScript(
  options: InstallScriptOptions & z.output<typeof installDatabaseQuerySchema>,
): string {
  return agentInstallScript({ ...options, kind: 'db', noun: 'database' });
}
