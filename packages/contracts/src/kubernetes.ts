import { z } from 'zod';
import { totpCodeSchema } from './identity/webauthn.js';
import { nodeLabelSchema } from './nodes.js';
import { resourceListQuerySchema, resourceListResponseSchema } from './resource-list.js';
import { participantModes } from './roles.js';
import { terminalSizeSchema } from './terminal/request.js';

/**
 * Kubernetes clusters (spec §3 Kube cluster, §7 `GET kubernetes`; reference §1.5): the list JSON
 * keeps the reference's `kubernetes_users` and `kubernetes_groups` so its clients keep working.
 * docs/kubernetes.md says how the proxy reaches a cluster and what the fields mean.
 */

export const kubeClusterNamePattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const kubeClusterNameSchema = z
  .string()
  .regex(
    kubeClusterNamePattern,
    'Kubernetes cluster names are DNS labels: a-z, 0-9 and inner dashes, 1-63 characters',
  );

const pemCertificate = z
  .string()
  .max(65_536)
  .refine((pem) => pem.includes('-----BEGIN CERTIFICATE-----'), {
    message: 'a PEM certificate (-----BEGIN CERTIFICATE-----)',
  });

/**
 * How the proxy reaches the cluster's API server: its URL, the CA of its certificate, and a
 * credential the cluster gives Postern (a service account token, or a client certificate) that may
 * impersonate users and groups; or a kubeconfig file on the proxy's host holding the same. An
 * agent's cluster names none of it: the agent holds its kubeconfig itself.
 */
export const kubeClusterSpecSchema = z.object({
  server: z
    .string()
    .max(2048)
    .regex(/^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/, 'server is an https:// URL of the API server')
    .optional(),
  ca_cert: pemCertificate.optional(),
  /** The name the API server's certificate is checked against, when not the URL's host. */
  tls_server_name: z.string().max(253).optional(),
  /** Skips the check of the API server's certificate: test set-ups only. */
  insecure_skip_verify: z.boolean().default(false),
  credentials: z
    .object({
      token: z.string().max(65_536).optional(),
      client_cert: pemCertificate.optional(),
      client_key: z.string().max(65_536).optional(),
    })
    .optional(),
  /** A kubeconfig file on the proxy's host (its current context, or `context`). */
  kubeconfig: z.string().max(4096).optional(),
  context: z.string().max(256).optional(),
});
export type KubeClusterSpec = z.infer<typeof kubeClusterSpecSchema>;

/** The resource (`postern create -f kube.yaml`, the config file, agents). */
export const kubeClusterResourceSchema = z.object({
  kind: z.literal('kube_cluster'),
  version: z.literal('v3').default('v3'),
  metadata: z.object({
    name: kubeClusterNameSchema,
    description: z.string().max(1024).default(''),
    labels: z.record(z.string().max(256), z.string().max(256)).default({}),
  }),
  spec: kubeClusterSpecSchema.default({ insecure_skip_verify: false }),
});
export type KubeClusterResource = z.infer<typeof kubeClusterResourceSchema>;
export type KubeClusterResourceInput = z.input<typeof kubeClusterResourceSchema>;

export const kubeClusterJsonSchema = z.object({
  kind: z.literal('kube_cluster'),
  name: z.string(),
  description: z.string(),
  labels: z.array(nodeLabelSchema),
  /** What this user may be in the cluster: the users and groups their roles allow here. */
  kubernetes_users: z.array(z.string()),
  kubernetes_groups: z.array(z.string()),
  /** Reached through an agent's tunnel. */
  tunnel: z.boolean(),
  status: z.enum(['online', 'offline']),
});
export type KubeClusterJson = z.infer<typeof kubeClusterJsonSchema>;

export const kubeClusterSortFields = ['name', 'description'] as const;
export type KubeClusterSortField = (typeof kubeClusterSortFields)[number];
export const defaultKubeClusterSort: { field: KubeClusterSortField; dir: 'asc' | 'desc' } = {
  field: 'name',
  dir: 'asc',
};

/** `GET /sites/{clusterId}/kubernetes`: searched by name and description, and labels. */
export const kubeClusterListQuerySchema = resourceListQuerySchema(kubeClusterSortFields);
export type KubeClusterListQuery = z.input<typeof kubeClusterListQuerySchema>;
export const kubeClusterListResponseSchema = resourceListResponseSchema(kubeClusterJsonSchema);
export type KubeClusterListResponse = z.infer<typeof kubeClusterListResponseSchema>;

/**
 * `GET /sites/{clusterId}/kubernetes/{name}/resources`: namespaces, or the pods of one, as the
 * user's roles and the cluster let them see them (the Exec in browser picker).
 */
export const kubeResourcesQuerySchema = z.strictObject({
  kind: z.enum(['namespace', 'pod'], { error: 'kind is namespace or pod' }),
  kubeNamespace: z.string().max(253).optional(),
});
export const kubeResourceItemSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  /** A pod's containers, in order; empty for a namespace. */
  containers: z.array(z.string()),
  /** A pod's phase (Running, Pending…); a namespace's (Active…). */
  status: z.string(),
});
export type KubeResourceItem = z.infer<typeof kubeResourceItemSchema>;
export const kubeResourcesResponseSchema = z.object({ items: z.array(kubeResourceItemSchema) });
export type KubeResourcesResponse = z.infer<typeof kubeResourcesResponseSchema>;

/**
 * The `params` of the browser's exec WebSocket (reference: the `k` message's fields), the terminal
 * protocol otherwise; with `sid` the caller joins a live exec session instead.
 */
export const kubeExecRequestSchema = z.object({
  namespace: z.string().max(253).default(''),
  pod: z.string().max(253).default(''),
  container: z.string().max(253).default(''),
  /** The command, split on spaces like a shell's words (`/bin/sh` when empty). */
  command: z.string().max(4096).default(''),
  term: terminalSizeSchema,
  sid: z.string().max(64).optional(),
  mode: z.enum(participantModes).optional(),
});
export type KubeExecRequest = z.infer<typeof kubeExecRequestSchema>;

/**
 * `postern kube login NAME` and kubectl's credential plugin (`postern kube credentials NAME`):
 * with an authenticator code, when the roles ask for per-session MFA (require_session_mfa), the
 * certificate is a one-minute one that passed the check.
 */
export const kubeLoginRequestSchema = z.strictObject({
  totp_code: totpCodeSchema.optional(),
});
export type KubeLoginRequest = z.infer<typeof kubeLoginRequestSchema>;

/** A certificate for one cluster. */
export const kubeLoginResponseSchema = z.object({
  /**
   * The user's client certificate and key (PEM) for this cluster only. Absent when the roles ask
   * for a per-session MFA check and no code came with the call: such a certificate would open
   * nothing, so none is signed.
   */
  cert: z.string().optional(),
  key: z.string().optional(),
  /** The CA that signed the Kubernetes listener's server certificate. */
  ca: z.string(),
  /** When the certificate ends; without one, when the login behind the call does. */
  expires: z.string(),
  /** `https://host:port/kube/NAME`: the kubeconfig's server. */
  server: z.string(),
  /** The TLS server name (SNI) that reaches the Kubernetes listener on that port. */
  tls_server_name: z.string(),
  /**
   * The roles ask for an MFA check for each session: a certificate issued without a code opens
   * nothing, so kubectl must get one through the credential plugin, which asks for the code.
   */
  session_mfa_required: z.boolean(),
  /** This certificate passed that check (it was asked for with a code): a one-minute one. */
  session_mfa_verified: z.boolean(),
});
export type KubeLoginResponse = z.infer<typeof kubeLoginResponseSchema>;
