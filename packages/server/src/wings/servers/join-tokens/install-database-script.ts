import { databaseNameSchema, databaseTlsModes } from '@postern/contracts';
import { z } from 'zod';
import { agentInstallScript, urlOnly } from './agent-install-script.js';
import type { InstallScriptOptions } from './install-script.js';

const expected = 'expected postgres://host:port or mysql://host:port';

/**
 * Why `uri` is not what `postern agent --db name=uri` takes (agent/database-flags.ts), or
 * undefined: a postgres(ql) or mysql scheme, a host, an optional port, and only libpq's
 * `sslmode` and `sslrootcert` (an absolute path on the agent's host). A user or password is
 * refused: Postern signs in with certificates, and a link must not carry a secret.
 */
function databaseUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return expected;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!['postgres', 'postgresql', 'mysql'].includes(scheme) || !url.hostname) return expected;
  if (url.username || url.password) {
    return 'no user or password in the uri: Postern signs in to the database with certificates';
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash) {
    return `${expected}, with only sslmode and sslrootcert after ?`;
  }
  for (const key of url.searchParams.keys()) {
    if (key !== 'sslmode' && key !== 'sslrootcert') {
      return `unknown parameter ${key}: only sslmode and sslrootcert`;
    }
  }
  const mode = url.searchParams.get('sslmode');
  if (mode !== null && !(databaseTlsModes as readonly string[]).includes(mode)) {
    return `sslmode is one of ${databaseTlsModes.join(', ')}`;
  }
  const caFile = url.searchParams.get('sslrootcert');
  if (caFile !== null && !caFile.startsWith('/')) {
    return 'sslrootcert is an absolute path on the agent host';
  }
  return undefined;
}

/**
 * `?name=orders&uri=postgres://db1.internal:5432?sslmode=verify-full`: the database resource's
 * name and what `--db` takes, in characters that need no quoting anywhere the script or
 * systemd puts them.
 */
export const installDatabaseQuerySchema = z.object({
  name: databaseNameSchema,
  uri: urlOnly(z.string().max(1024)).superRefine((uri, ctx) => {
    const problem = databaseUriProblem(uri);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

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
