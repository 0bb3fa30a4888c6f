import {
  desktopNameSchema,
  desktopProtocols,
  desktopResourceSchema,
  type DesktopResource,
} from '@postern/contracts';
import { z } from 'zod';
import type { AgentHeartbeats } from '../../modules/tunnel/index.js';
import type { DesktopsService } from './desktops.service.js';

/** An agent's `desktops` as its heartbeat lists them: no password ever leaves the agent. */
const agentDesktopsSchema = z
  .array(
    z
      .object({
        name: desktopNameSchema,
        protocol: z.enum(desktopProtocols),
        addr: z.string().max(300),
        os: z.string().max(64),
        labels: z.record(z.string().max(256), z.string().max(256)),
      })
      .strict(),
  )
  .max(64)
  .default([]);

export interface AgentDesktopsReport {
  nodeId: string;
  desktops: DesktopResource[];
}

/**
 * How the `desktops` of an agent's heartbeat become desktop records (source `agent`, expiring
 * unless renewed), so a desktop only the agent's host reaches is listed and opened like the
 * proxy's own. The agent signs in to the desktop itself and keeps its password (docs/desktops.md).
 */
export function agentDesktopHeartbeats(
  desktops: DesktopsService,
  ttlMs: number,
): AgentHeartbeats<AgentDesktopsReport> {
  return {
    read: (nodeId, frame) => {
      const parsed = agentDesktopsSchema.safeParse(frame.desktops);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return {
          ok: false,
          why: `desktops.${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        };
      }
      const resources = parsed.data.map((desktop) =>
        desktopResourceSchema.parse({
          kind: 'desktop',
          metadata: { name: desktop.name, labels: desktop.labels },
          spec: { addr: desktop.addr, protocol: desktop.protocol, os: desktop.os, host_id: nodeId },
        }),
      );
      return { ok: true, value: { nodeId, desktops: resources } };
    },
    record: ({ nodeId, desktops: served }) => desktops.reportFromAgent(nodeId, served, ttlMs),
  };
}
