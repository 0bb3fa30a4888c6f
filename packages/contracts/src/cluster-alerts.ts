import { z } from 'zod';

/**
 * Cluster alerts (reference §1: `GET /sites/{clusterId}/alerts`): messages an admin posts to
 * everyone who signs in to the console (maintenance tonight, a policy change), shown as banners.
 * `postern alerts create|ls|rm` manages them.
 */

/** The admin's words for a severity, and the number the reference stores. */
export const alertSeverities = { low: 0, medium: 5, high: 10 } as const;
export type AlertSeverityName = keyof typeof alertSeverities;

/** An optional link shown beside the message (reference: this label holds it). */
export const alertLinkLabel = 'teleport.internal/link';

export const clusterAlertSchema = z.object({
  kind: z.literal('cluster_alert'),
  version: z.literal('v1'),
  metadata: z.object({
    name: z.string(),
    labels: z.record(z.string(), z.string()).default({}),
    /** RFC 3339; absent: until removed. */
    expires: z.string().optional(),
  }),
  spec: z.object({
    /** Below 5 info, below 10 warning, otherwise danger (reference). */
    severity: z.number().int(),
    message: z.string(),
    /** RFC 3339. */
    created: z.string(),
  }),
});
export type ClusterAlert = z.infer<typeof clusterAlertSchema>;

/** `GET /v1/webapi/sites/{clusterId}/alerts`. */
export const clusterAlertsResponseSchema = z.object({ alerts: z.array(clusterAlertSchema) });

/** How a banner shows a severity (reference). */
export function alertLevel(severity: number): 'info' | 'warning' | 'danger' {
  if (severity < 5) return 'info';
  if (severity < 10) return 'warning';
  return 'danger';
}

/** A link an alert may carry: http(s) only, so a banner never runs `javascript:`. */
export const alertLinkSchema = z
  .string()
  .max(2048)
  .refine((link) => /^https?:\/\/[^\s]+$/i.test(link), {
    message: 'the link must be an http:// or https:// URL',
  });

export const alertMessageSchema = z
  .string()
  .trim()
  .min(1, 'an alert needs a message')
  .max(1000, 'an alert message is at most 1000 characters');
