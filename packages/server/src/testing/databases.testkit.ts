import { databaseResourceSchema } from '@postern/contracts';
import { hostActor, type Actor } from '../access-control/access/actor.js';
import type { TestApp } from './app-harness.testkit.js';
import { createRole } from './roles.testkit.js';

/**
 * Registers a database the tests started (a private PostgreSQL or MariaDB on loopback) as the
 * host's administrator would, with its server certificate pinned (`verify-full`).
 */
export function registerTestDatabase(
  app: TestApp,
  server: { port: number; serverCertPem?: string },
  db: { name: string; protocol: 'postgres' | 'mysql'; labels?: Record<string, string> },
  actor: Actor = hostActor('test'),
) {
  return app.services.databases.create(
    databaseResourceSchema.parse({
      kind: 'db',
      metadata: { name: db.name, labels: db.labels ?? { env: 'test' } },
      spec: {
        protocol: db.protocol,
        uri: `127.0.0.1:${server.port}`,
        ca_cert: server.serverCertPem,
        tls: { mode: 'verify-full' },
      },
    }),
    actor,
  );
}

/** A role reaching the databases labelled `env: test` as these users and names. */
export function createDatabaseRole(
  app: TestApp,
  name: string,
  allow: { db_users: string[]; db_names: string[]; [rule: string]: unknown },
  options?: Record<string, unknown>,
) {
  return createRole(app, name, {
    allow: { db_labels: { env: 'test' }, ...allow },
    ...(options ? { options } : {}),
  });
}
