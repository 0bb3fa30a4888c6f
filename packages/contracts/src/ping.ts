import { z } from 'zod';
import { authConfigSchema } from './client-config.js';

/** `GET /v1/webapi/ping`: what a client needs to know before it signs in. */
export const pingResponseSchema = z.object({
  auth: authConfigSchema.extend({
    /** The WebAuthn relying-party id, for clients that are not browsers (optional). */
    webauthn: z.object({ rp_id: z.string() }).optional(),
  }),
  proxy: z.object({
    ssh: z.object({
      listen_addr: z.string(),
      public_addr: z.string(),
      tunnel_public_addr: z.string(),
    }),
    tls_routing_enabled: z.boolean(),
  }),
  server_version: z.string(),
  min_client_version: z.string(),
  cluster_name: z.string(),
});
export type PingResponse = z.infer<typeof pingResponseSchema>;
