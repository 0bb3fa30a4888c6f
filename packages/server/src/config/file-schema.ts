import {
  appNameSchema,
  appResourceSchema,
  appUriSchema,
  databaseNameSchema,
  databaseResourceSchema,
  databaseTlsModes,
  databaseUriSchema,
  desktopAddrSchema,
  desktopNameSchema,
  desktopProtocols,
  kubeClusterNameSchema,
  kubeClusterSpecSchema,
  publicAddrSchema,
} from '@postern/contracts';
import { z } from 'zod';
import { parseHostPort } from './address.js';
import { authFileSchema } from './auth-config.js';

// The YAML config file's shape: every key optional, checked strictly so a typo is an error at
// its key. config.ts turns a parsed file and the flags into the resolved Config.

const hostPort = z.string().refine((value) => {
  try {
    parseHostPort(value, 'address');
    return true;
  } catch {
    return false;
  }
}, 'must be HOST:PORT');

const storageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('sqlite'), path: z.string().optional() }).strict(),
  z
    .object({ type: z.literal('postgres'), url: z.string().min(1), schema: z.string().optional() })
    .strict(),
  z.object({ type: z.literal('memory') }).strict(),
]);

/** How long audit events are kept, e.g. '365d'; '0' (the default) keeps them forever. */
const auditRetention = z.union([z.string(), z.number()]).optional();

/** What happens when the audit store fails: its spool, and sessions once the spool is full. */
const auditFailureKeys = {
  retention: auditRetention,
  on_failure: z.enum(['refuse', 'continue']).optional(),
  spool_max_bytes: z.number().int().positive().optional(),
};

const auditStorageSchema = z.union([
  z.discriminatedUnion('type', [
    z
      .object({ type: z.literal('sqlite'), path: z.string().optional(), ...auditFailureKeys })
      .strict(),
    z
      .object({
        type: z.literal('postgres'),
        url: z.string().min(1),
        schema: z.string().optional(),
        ...auditFailureKeys,
      })
      .strict(),
  ]),
  // No type: the audit log stays where it goes by default, with these settings.
  z.object(auditFailureKeys).strict(),
]);

/** The audit spool's bound when none is configured. */
export const defaultAuditSpoolMaxBytes = 64 * 1024 * 1024;

/** How `postern start` writes its log: JSON lines, readable lines, or text on a terminal only. */
export const logFormats = ['auto', 'json', 'text'] as const;
export type LogFormat = (typeof logFormats)[number];

/** The built-in node service: the host `postern start` runs on appears as a server. */
const sshServiceSchema = z
  .object({
    enabled: z.boolean().optional(),
    listen_addr: hostPort.optional(),
    labels: z.record(z.string(), z.string()).optional(),
    /** OpenSSH's sftp-server binary for the sftp subsystem; found in the usual places if unset. */
    sftp_server: z.string().min(1).optional(),
    commands: z
      .array(
        z
          .object({
            name: z.string().min(1),
            command: z.array(z.string()).min(1),
            period: z.string().optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

/** The YAML config file. Every key is optional; flags override it. See docs/configuration.md. */
export const fileConfigSchema = z
  .object({
    data_dir: z.string().optional(),
    cluster_name: z.string().min(1).max(253).optional(),
    web_addr: hostPort.optional(),
    ssh_addr: hostPort.optional(),
    /** The native PostgreSQL listener (docs/databases.md); off unless set. */
    postgres_addr: hostPort.optional(),
    /** The native MySQL listener (docs/databases.md); off unless set. */
    mysql_addr: hostPort.optional(),
    /** A port of its own for the Kubernetes listener (docs/kubernetes.md); off unless set. */
    kube_addr: hostPort.optional(),
    public_addr: hostPort.optional(),
    /** Prometheus metrics at `/metrics` on a listener of its own (docs/high-availability.md). */
    metrics_addr: hostPort.optional(),
    insecure_no_tls: z.boolean().optional(),
    tls: z.object({ cert_file: z.string(), key_file: z.string() }).strict().optional(),
    storage: storageSchema.optional(),
    audit: auditStorageSchema.optional(),
    log: z
      .object({
        level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).optional(),
        format: z.enum(logFormats).optional(),
      })
      .strict()
      .optional(),
    auth: authFileSchema.optional(),
    ssh_service: sshServiceSchema.optional(),
    heartbeat_interval: z.union([z.string(), z.number()]).optional(),
    openssh_check_interval: z.union([z.string(), z.number()]).optional(),
    ssh: z
      .object({ keepalive_interval: z.union([z.string(), z.number()]).optional() })
      .strict()
      .optional(),
    shutdown_grace: z.union([z.string(), z.number()]).optional(),
    /** How long a web terminal whose connection dropped is kept for its owner to resume it. */
    terminal_resume_grace: z.union([z.string(), z.number()]).optional(),
    /** How long SIGTERM drains (readyz 503, new sessions refused) before sessions are ended. */
    shutdown_drain: z.union([z.string(), z.number()]).optional(),
    /**
     * How long this proxy's registry record lives without a renewal: when the others take it for
     * dead and finish its sessions and recordings (docs/high-availability.md). Renewed every third.
     */
    proxy_ttl: z.union([z.string(), z.number()]).optional(),
    /**
     * Load balancers that terminate HTTP in front of the proxy (addresses or CIDR ranges): from
     * them, X-Forwarded-For names the client, for rate limits and the audit log.
     */
    trusted_proxies: z.array(z.string().min(1).max(64)).max(64).optional(),
    recordings: z
      .object({
        dir: z.string().optional(),
        on_failure: z.enum(['fail_closed', 'fail_open']).optional(),
        /** How often the recordings volume's usage is checked (and once at start). */
        disk_check_interval: z.union([z.string(), z.number()]).optional(),
        /** The usage, in percent, at which a warning is logged and audited. */
        disk_warn_percent: z.number().min(1).max(100).optional(),
        /** `dir` (default): files under `dir`; `s3`: an S3-compatible bucket (high availability). */
        type: z.enum(['dir', 's3']).optional(),
        bucket: z.string().min(3).max(63).optional(),
        endpoint: z.string().url().optional(),
        region: z.string().min(1).optional(),
        path_style: z.boolean().optional(),
        /** Keys start with it (`recordings/`); letters, digits, `/`, `.`, `_` and `-`. */
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9/._-]*$/)
          .optional(),
        /** Absent: the environment's (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, profiles). */
        credentials: z
          .object({
            access_key_id: z.string().min(1),
            secret_access_key: z.string().min(1).optional(),
            /** A file holding the secret, so the config file need not. */
            secret_access_key_file: z.string().min(1).optional(),
          })
          .strict()
          .optional(),
        /** How long recorded bytes may wait in memory before they reach the spool (s3; ≤ 5s). */
        spool_flush_interval: z.union([z.string(), z.number()]).optional(),
      })
      .strict()
      .optional(),
    /**
     * The assistant (docs/assist.md): the chat model it asks, any OpenAI-compatible chat API.
     * Absent: no assistant. The token is read from a file, never written in this one.
     */
    assist: z
      .object({
        openai: z
          .object({
            api_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
            api_token_file: z.string().min(1).optional(),
            model: z.string().min(1).max(256),
          })
          .strict(),
        /** Model requests (chat turns, titles, summaries) per user: a burst, then per minute. */
        rate_limit: z
          .object({
            burst: z.number().int().positive().optional(),
            per_minute: z.number().positive().optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    file_transfer: z
      .object({ max_bytes: z.number().int().positive().optional() })
      .strict()
      .optional(),
    session_open_limit: z
      .object({
        burst: z.number().int().positive().optional(),
        per_second: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /** Applications this proxy serves itself (docs/apps.md): the app resource's fields, flat. */
    apps: z
      .array(
        z
          .object({
            name: appNameSchema,
            uri: appUriSchema,
            public_addr: publicAddrSchema.optional(),
            description: z.string().max(1024).optional(),
            labels: z.record(z.string().max(256), z.string().max(256)).optional(),
            insecure_skip_verify: z.boolean().optional(),
            rewrite: appResourceSchema.shape.spec.shape.rewrite.optional(),
          })
          .strict(),
      )
      .optional(),
    /** Databases this proxy reaches itself (docs/databases.md): the db resource's fields, flat. */
    databases: z
      .array(
        z
          .object({
            name: databaseNameSchema,
            protocol: databaseResourceSchema.shape.spec.shape.protocol,
            uri: databaseUriSchema,
            description: z.string().max(1024).optional(),
            labels: z.record(z.string().max(256), z.string().max(256)).optional(),
            /** A file holding the PEM of the CA that signed the database's certificate. */
            ca_cert_file: z.string().min(1).optional(),
            tls: z
              .object({ mode: z.enum(databaseTlsModes) })
              .strict()
              .optional(),
          })
          .strict(),
      )
      .optional(),
    /**
     * Desktops this proxy reaches itself (docs/desktops.md): the desktop resource's fields, flat,
     * with `vnc_password_file` naming a file that holds the VNC password instead of the password.
     */
    desktops: z
      .array(
        z
          .object({
            name: desktopNameSchema,
            description: z.string().max(1024).optional(),
            labels: z.record(z.string().max(256), z.string().max(256)).optional(),
            addr: desktopAddrSchema,
            protocol: z.enum(desktopProtocols).optional(),
            os: z.string().max(64).optional(),
            host_id: z.string().max(256).optional(),
            vnc_password_file: z.string().min(1).optional(),
          })
          .strict(),
      )
      .optional(),
    /**
     * Kubernetes clusters this proxy reaches itself (docs/kubernetes.md): the kube_cluster
     * resource's fields, flat, with `ca_cert_file` naming a PEM file instead of `ca_cert`.
     */
    kubernetes_clusters: z
      .array(
        z
          .object({
            name: kubeClusterNameSchema,
            description: z.string().max(1024).optional(),
            labels: z.record(z.string().max(256), z.string().max(256)).optional(),
            ...kubeClusterSpecSchema.omit({ ca_cert: true }).shape,
            ca_cert_file: z.string().min(1).optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();
export type FileConfig = z.infer<typeof fileConfigSchema>;
