import { z } from 'zod';

/**
 * Trusted clusters (spec §2 `/web/trust`, §7 `trustedcluster/{name?}`). A trusted cluster is a
 * resource made on a **leaf** cluster: it names a **root** cluster's proxy, a join token the root
 * made for it, and how the root's roles map onto the leaf's. Creating one joins the leaf to the
 * root (the leaf calls the root's validate route with the token), after which the leaf keeps a
 * tunnel to the root and the root lists the leaf among its clusters.
 *
 * Items are the uniform YAML resource items `{id: 'trusted_cluster:NAME', kind, name, content}`;
 * the join token is a secret and leaves the server as `secretPlaceholder` (a PUT that keeps the
 * placeholder keeps the token).
 */
export const trustedClusterKind = 'trusted_cluster' as const;

/** A cluster's name: a DNS-label-like word, as `cluster_name` is in the config file. */
export const clusterNamePattern = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}$/;
export const clusterNameSchema = z
  .string()
  .regex(clusterNamePattern, 'a cluster name is letters, digits, dots, dashes and underscores');

/**
 * One line of the role map: users holding the root role `remote` (a name, `*`, a glob or an
 * anchored regex) get the leaf roles `local` on the leaf.
 */
export const roleMappingSchema = z
  .object({
    remote: z.string().min(1).max(256),
    local: z.array(z.string().min(1).max(128)).min(1, 'name at least one local role').max(32),
  })
  .strict();
export type RoleMapping = z.infer<typeof roleMappingSchema>;

export const trustedClusterSpecSchema = z
  .object({
    /** Off: the tunnel to the root is closed and the root shows the leaf offline. */
    enabled: z.boolean().default(true),
    /** The join token the root made with `postern tokens add --type trusted_cluster`. */
    token: z.string().min(1).max(256),
    /** The root proxy's web address: `host:port` (HTTPS) or an `https://` URL. */
    web_proxy_addr: z.string().min(1).max(512),
    /** Accepted for pasted resources; the tunnel runs over `web_proxy_addr`. */
    tunnel_addr: z.string().max(512).optional(),
    role_map: z.array(roleMappingSchema).min(1, 'map at least one root role').max(64),
  })
  .strict();
export type TrustedClusterSpec = z.infer<typeof trustedClusterSpecSchema>;

export const trustedClusterSchema = z
  .object({
    kind: z.literal(trustedClusterKind),
    version: z.enum(['v2']).default('v2'),
    metadata: z
      .object({
        /** The root cluster's name: the validate answer must name the same cluster. */
        name: clusterNameSchema,
        description: z.string().max(1024).optional(),
        labels: z.record(z.string(), z.string()).optional(),
        revision: z.string().optional(),
      })
      .strict(),
    spec: trustedClusterSpecSchema,
  })
  .strict();
export type TrustedCluster = z.infer<typeof trustedClusterSchema>;

/** Where the leaf's link to the root stands, for the Trusted Clusters page. */
export const trustedClusterStates = ['connected', 'connecting', 'disabled'] as const;
export type TrustedClusterState = (typeof trustedClusterStates)[number];

export const trustedClusterItemSchema = z.object({
  id: z.string(),
  kind: z.literal(trustedClusterKind),
  name: z.string(),
  /** The resource as YAML, the token replaced by the placeholder. */
  content: z.string(),
  /** Postern's addition to the reference item: the link's state on the proxy that answered. */
  status: z
    .object({
      state: z.enum(trustedClusterStates),
      /** Why the last attempt to reach the root failed, when it did. */
      error: z.string().optional(),
    })
    .optional(),
});
export type TrustedClusterItem = z.infer<typeof trustedClusterItemSchema>;

export const trustedClusterItemId = (name: string) => `${trustedClusterKind}:${name}`;

/** `POST /trustedcluster` and `PUT /trustedcluster/{name}`: the YAML (JSON is YAML too). */
export const trustedClusterContentRequestSchema = z.object({
  content: z
    .string()
    .min(1)
    .max(64 * 1024),
});

/**
 * The leaf asks the root to trust it (`POST /v1/agent/trusted-clusters/validate`, leaf → root):
 * the token proves the root's admin allowed it; the key is what the leaf will prove itself with
 * when it opens its tunnel.
 */
export const trustedClusterValidateRequestSchema = z
  .object({
    token: z.string().min(1).max(256),
    /**
     * The root the leaf's admin named (the resource's name): a root of another name refuses
     * before it records anything, so a typo never leaves a half-made trust on the root.
     */
    root_name: clusterNameSchema,
    leaf_name: clusterNameSchema,
    /** The leaf's Ed25519 public key, an OpenSSH line. */
    leaf_public_key: z.string().min(1).max(4096),
  })
  .strict();
export type TrustedClusterValidateRequest = z.infer<typeof trustedClusterValidateRequestSchema>;

export const trustedClusterValidateResponseSchema = z.object({
  /** The root's own name: it must be the trusted cluster resource's name. */
  cluster_name: clusterNameSchema,
  /**
   * The root's Ed25519 public key (SPKI PEM) that signs the identities of root users it forwards
   * to the leaf; the leaf keeps it and trusts nothing else from the tunnel.
   */
  identity_key: z.string().min(1).max(4096),
});
export type TrustedClusterValidateResponse = z.infer<typeof trustedClusterValidateResponseSchema>;
