import {
  appNameSchema,
  appResourceSchema,
  appUriSchema,
  type AppResource,
} from '@postern/contracts';
import { z } from 'zod';
import type { AgentHeartbeats } from '../../modules/tunnel/index.js';
import type { AppsService } from './apps.service.js';

/**
 * An agent's `apps` as its heartbeat lists them. No public_addr: an agent's app is always
 * `<name>.<proxy host>`, so an agent cannot claim a host name of the proxy's choosing.
 */
const agentAppsSchema = z
  .array(
    z
      .object({
        name: appNameSchema,
        uri: appUriSchema,
        labels: z.record(z.string().max(256), z.string().max(256)),
      })
      .strict(),
  )
  .max(64)
  .default([]);

export interface AgentAppsReport {
  nodeId: string;
  apps: AppResource[];
}

/**
 * How the `apps` of an agent's heartbeat become app records (source `agent`, expiring unless the
 * next heartbeats renew them), so apps reached only from inside an agent's network are listed,
 * launched and tunnelled like the proxy's own.
 */
export function agentAppHeartbeats(
  apps: AppsService,
  ttlMs: number,
): AgentHeartbeats<AgentAppsReport> {
  return {
    read: (nodeId, frame) => {
      const parsed = agentAppsSchema.safeParse(frame.apps);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { ok: false, why: `apps.${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}` };
      }
      const resources = parsed.data.map(({ name, uri, labels }) =>
        appResourceSchema.parse({ kind: 'app', metadata: { name, labels }, spec: { uri } }),
      );
      return { ok: true, value: { nodeId, apps: resources } };
    },
    record: ({ nodeId, apps: served }) => apps.reportFromAgent(nodeId, served, ttlMs),
  };
}
