import { z } from 'zod';

import { participantModes, sessionKinds } from './roles.js';

export const sessionPartySchema = z.object({
  id: z.string(),
  user: z.string(),
  mode: z.enum(participantModes),
  server_id: z.string(),
  /** RFC 3339. */
  last_active: z.string(),
  /**
   * RFC 3339: when the party's connection dropped, while the session waits for its client to
   * resume it (docs/protocol.md §6.1). Absent while it is connected. Postern's own field.
   */
  connection_lost_at: z.string().optional(),
});
export type SessionParty = z.infer<typeof sessionPartySchema>;

/**
 * A live session as `GET /sites/{clusterId}/sessions` lists it and the terminal's `s` frame
 * carries it (reference §1.7, snake_case like the reference).
 */
export const activeSessionJsonSchema = z.object({
  kind: z.enum(sessionKinds),
  id: z.string(),
  namespace: z.string(),
  login: z.string(),
  /** RFC 3339. */
  created: z.string(),
  last_active: z.string(),
  server_id: z.string(),
  server_hostname: z.string(),
  server_addr: z.string(),
  cluster_name: z.string(),
  /** The user who started the session. */
  owner: z.string(),
  terminal_params: z.object({ w: z.number().int(), h: z.number().int() }),
  parties: z.array(sessionPartySchema),
  /** The join modes the caller may use (from their roles' join_sessions rules). */
  participantModes: z.array(z.enum(participantModes)),
  moderated: z.boolean(),
  /** The command of a non-interactive session; '' for a shell. */
  command: z.string(),
});
export type ActiveSessionJson = z.infer<typeof activeSessionJsonSchema>;

export const activeSessionListSchema = z.object({ sessions: z.array(activeSessionJsonSchema) });
export type ActiveSessionList = z.infer<typeof activeSessionListSchema>;
