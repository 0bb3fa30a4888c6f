import {
  databaseNameSchema,
  databaseProtocols,
  databaseResourceSchema,
  databaseTlsModes,
  databaseUriSchema,
  type DatabaseResource,
} from '@postern/contracts';
import { z } from 'zod';
import type { AgentHeartbeats } from '../../modules/tunnel/index.js';
import type { DatabasesService } from './databases.service.js';

/** An agent's `databases` as its heartbeat lists them. */
const agentDatabasesSchema = z
  .array(
    z
      .object({
        name: databaseNameSchema,
        protocol: z.enum(databaseProtocols),
        uri: databaseUriSchema,
        labels: z.record(z.string().max(256), z.string().max(256)),
        ca_cert: z.string().max(65_536).optional(),
        tls_mode: z.enum(databaseTlsModes),
      })
      .strict(),
  )
  .max(64)
  .default([]);

export interface AgentDatabasesReport {
  nodeId: string;
  databases: DatabaseResource[];
}

/**
 * How the `databases` of an agent's heartbeat become database records (source `agent`, expiring
 * unless the next heartbeats renew them), so a database reached only from inside the agent's
 * network is listed and connected to like the proxy's own: the proxy speaks the protocol and its
 * TLS end to end, the agent relays bytes.
 */
export function agentDatabaseHeartbeats(
  databases: DatabasesService,
  ttlMs: number,
): AgentHeartbeats<AgentDatabasesReport> {
  return {
    read: (nodeId, frame) => {
      const parsed = agentDatabasesSchema.safeParse(frame.databases);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return {
          ok: false,
          why: `databases.${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        };
      }
      const resources = parsed.data.map((db) =>
        databaseResourceSchema.parse({
          kind: 'db',
          metadata: { name: db.name, labels: db.labels },
          spec: {
            protocol: db.protocol,
            uri: db.uri,
            ca_cert: db.ca_cert,
            tls: { mode: db.tls_mode },
          },
        }),
      );
      return { ok: true, value: { nodeId, databases: resources } };
    },
    record: ({ nodeId, databases: served }) => databases.reportFromAgent(nodeId, served, ttlMs),
  };
}
