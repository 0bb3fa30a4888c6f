import { z } from 'zod';

/**
 * The connection test of Discover (spec §3 Connection diagnostic, §7 POST diagnostic;
 * reference §1.14): the proxy tries the way to a resource as the caller would take it and says,
 * step by step, what worked and what did not.
 */

/** `POST /sites/{clusterId}/diagnostics/connections`. Each kind reads the fields it needs. */
export const connectionDiagnosticRequestSchema = z.object({
  /** `node`, `kube_cluster`, `db`, … as the reference names them. */
  resource_kind: z.string().min(1, 'name the kind of resource to test').max(64),
  resource_name: z.string().min(1, 'name the resource to test').max(256),
  ssh_principal: z.string().max(256).optional(),
  kubernetes_namespace: z.string().max(256).optional(),
  kubernetes_impersonation: z
    .object({
      kubernetes_user: z.string().max(256).optional(),
      kubernetes_groups: z.array(z.string().max(256)).max(64).optional(),
    })
    .optional(),
  database_name: z.string().max(256).optional(),
  database_user: z.string().max(256).optional(),
  /** Accepted for the reference's clients; no test here needs a second factor. */
  mfa_response: z.unknown().optional(),
});
export type ConnectionDiagnosticRequest = z.infer<typeof connectionDiagnosticRequestSchema>;

/**
 * The steps a test reports, with the reference's names: `rbac_database` (the roles reach the
 * database), `rbac_database_login` (they allow that database user and name), `connectivity` (the
 * resource answers), and the others' for nodes and Kubernetes.
 */
export const connectionTraceTypes = [
  'unknown_trace_type',
  'rbac_node',
  'connectivity',
  'rbac_principal',
  'node_ssh_server',
  'node_ssh_session',
  'node_principal',
  'rbac_kube',
  'kube_principal',
  'rbac_database',
  'rbac_database_login',
  'database_db_user',
  'database_db_name',
] as const;
export type ConnectionTraceType = (typeof connectionTraceTypes)[number];

export const connectionTraceSchema = z.object({
  trace_type: z.enum(connectionTraceTypes),
  /** Lowercase (spec §3). */
  status: z.enum(['success', 'failed']),
  /** What was checked, in words. */
  details: z.string(),
  /** Why it failed; '' when it did not. */
  error: z.string(),
});
export type ConnectionTrace = z.infer<typeof connectionTraceSchema>;

export const connectionDiagnosticSchema = z.object({
  id: z.string(),
  success: z.boolean(),
  /** 'success', or the first failed step's error. */
  message: z.string(),
  traces: z.array(connectionTraceSchema),
});
export type ConnectionDiagnostic = z.infer<typeof connectionDiagnosticSchema>;
