import type {
  AppResource,
  DatabaseResource,
  DesktopResource,
  KubeClusterResource,
} from '@postern/contracts';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseHostPort, type HostPort } from './address.js';
import { resolveAuth, type AuthSettings } from './auth-config.js';
import { ConfigError } from './config-error.js';
import { parseDuration } from './duration.js';
import { resolveRecordings, type RecordingsConfig } from './recordings-config.js';
import { resolveStaticResources } from './static-resources.js';
import { resolveAudit } from './audit-config.js';
import { readSecretFile } from './secret-file.js';
import { fileConfigSchema, logFormats, type FileConfig, type LogFormat } from './file-schema.js';

export { ConfigError };
export { readSecretFile } from './secret-file.js';
export {
  defaultAuditSpoolMaxBytes,
  fileConfigSchema,
  logFormats,
  type FileConfig,
  type LogFormat,
} from './file-schema.js';

/** 1 GiB: a large log or a database dump passes; a runaway upload does not fill the node. */
export const defaultFileTransferMaxBytes = 1024 ** 3;
export type { AuthSettings };

/** Flags of `postern start` (and of admin commands, which share --config and --data-dir). */
export interface ConfigFlags {
  config?: string;
  dataDir?: string;
  webAddr?: string;
  sshAddr?: string;
  postgresAddr?: string;
  mysqlAddr?: string;
  kubeAddr?: string;
  publicAddr?: string;
  metricsAddr?: string;
  clusterName?: string;
  insecureNoTls?: boolean;
  logFormat?: string;
}

export type StorageConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'postgres'; url: string; schema?: string }
  | { type: 'memory' };
export type AuditStorageConfig =
  { type: 'sqlite'; path: string } | { type: 'postgres'; url: string; schema?: string };

/** The resolved configuration every part of the server reads. */
export interface Config {
  dataDir: string;
  clusterName: string;
  webAddr: HostPort;
  sshAddr: HostPort;
  /** The native PostgreSQL listener's address; undefined: no such listener. */
  postgresAddr: HostPort | undefined;
  mysqlAddr: HostPort | undefined;
  /** The Kubernetes listener's own port; undefined: only the web port serves it (over TLS). */
  kubeAddr: HostPort | undefined;
  publicAddr: HostPort;
  /** The metrics listener's address (`GET /metrics`); undefined: no such listener. */
  metricsAddr: HostPort | undefined;
  insecureNoTls: boolean;
  tls?: { certFile: string; keyFile: string };
  storage: StorageConfig;
  audit: AuditStorageConfig;
  /** Audit events older than this are removed; 0 keeps them forever. */
  auditRetentionMs: number;
  /**
   * Events the audit store cannot take wait in a spool (a directory in the data dir) up to
   * `maxBytes`; once it is full, `refuse` refuses new sessions and `continue` lets them run.
   */
  auditSpool: { dir: string; maxBytes: number; onFailure: 'refuse' | 'continue' };
  logLevel: string;
  /** 'auto': readable lines when stdout is a terminal, JSON lines otherwise. */
  logFormat: LogFormat;
  /** Session recordings: where, and whether a storage failure ends the session. */
  recordings: RecordingsConfig;
  auth: AuthSettings;
  sshService: SshServiceConfig;
  /** How often node services and agents report; three missed and a server shows offline. */
  heartbeatIntervalMs: number;
  /** How often the proxy checks that agentless OpenSSH servers answer (they send no heartbeat). */
  opensshCheckIntervalMs: number;
  /** Web terminal uploads and downloads: the largest file accepted either way. */
  fileTransfer: { maxBytes: number };
  /** The assistant's chat model (docs/assist.md); undefined: no assistant. */
  assist?: AssistConfig | undefined;
  /** How fast one user may open connections to servers: `burst` at once, then `perSecond`. */
  sessionOpenLimit: { burst: number; perSecond: number };
  /** Keepalives to nodes: three unanswered end the session ("the server stopped answering"). */
  ssh: { keepaliveIntervalMs: number };
  /** How long SIGTERM waits for sessions to end and recordings to seal before it forces exit. */
  shutdownGraceMs: number;
  /**
   * How long a web terminal session whose owner's connection dropped (no close: a network
   * change, a sleeping laptop) waits for the owner's client to resume it; 0: it ends at once.
   */
  terminalResumeGraceMs: number;
  /**
   * How long SIGTERM drains before the grace starts: /readyz answers 503 and new sessions are
   * refused while live ones go on, so a load balancer sends traffic elsewhere first.
   */
  shutdownDrainMs: number;
  /** The life of this proxy's registry record without a renewal (renewed every third of it). */
  proxyTtlMs: number;
  /** Addresses or CIDR ranges whose X-Forwarded-For is believed (HTTP load balancers). */
  trustedProxies: string[];
  /** Applications from the config file, served by this proxy (docs/apps.md). */
  apps: AppResource[];
  /** Databases from the config file, reached by this proxy (docs/databases.md). */
  databases: DatabaseResource[];
  /** Kubernetes clusters from the config file, reached by this proxy (docs/kubernetes.md). */
  kubeClusters: KubeClusterResource[];
  /** Desktops from the config file, reached by this proxy (docs/desktops.md). */
  desktops: DesktopResource[];
}

export interface AssistConfig {
  apiUrl: string;
  apiToken: string | undefined;
  model: string;
  /** Model requests per user (a chat turn, a title, a summary): `burst`, then `perSecond`. */
  rateLimit: { burst: number; perSecond: number };
}

export interface SshServiceConfig {
  enabled: boolean;
  /** Loopback by default: only this proxy dials it. Other proxies need a reachable address. */
  listenAddr: HostPort;
  labels: Record<string, string>;
  commands: Array<{ name: string; command: string[]; period: string }>;
  /** Undefined: the first sftp-server found in the usual places. */
  sftpServer?: string;
}

export function readConfigFile(file: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = fileConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const where = issue.path.join('.') || '(top level)';
      return `${where}: ${issue.message}`;
    });
    throw new ConfigError(`config file ${file} is invalid:\n  ${issues.join('\n  ')}`);
  }
  return parsed.data;
}

/** Flags win over the file, the file over the defaults. */
export function resolveConfig(flags: ConfigFlags): Config {
  const file = flags.config ? readConfigFile(flags.config) : {};
  const dataDir = path.resolve(flags.dataDir ?? file.data_dir ?? './postern-data');
  const webAddr = parseHostPort(flags.webAddr ?? file.web_addr ?? '0.0.0.0:3080', '--web-addr');
  const sshAddr = parseHostPort(flags.sshAddr ?? file.ssh_addr ?? '0.0.0.0:3023', '--ssh-addr');
  const postgresAddrText = flags.postgresAddr ?? file.postgres_addr;
  const postgresAddr = postgresAddrText
    ? parseHostPort(postgresAddrText, '--postgres-addr')
    : undefined;
  const mysqlAddrText = flags.mysqlAddr ?? file.mysql_addr;
  const mysqlAddr = mysqlAddrText ? parseHostPort(mysqlAddrText, '--mysql-addr') : undefined;
  const kubeAddrText = flags.kubeAddr ?? file.kube_addr;
  const kubeAddr = kubeAddrText ? parseHostPort(kubeAddrText, '--kube-addr') : undefined;
  const publicAddrText = flags.publicAddr ?? file.public_addr;
  const publicAddr = publicAddrText
    ? parseHostPort(publicAddrText, '--public-addr')
    : defaultPublicAddr(webAddr);
  const metricsAddrText = flags.metricsAddr ?? file.metrics_addr;
  const metricsAddr = metricsAddrText
    ? parseHostPort(metricsAddrText, '--metrics-addr')
    : undefined;
  const clusterName = flags.clusterName ?? file.cluster_name ?? hostname();
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(clusterName)) {
    throw new ConfigError(
      `cluster name '${clusterName}' may hold only letters, digits, '.', '_' and '-'`,
    );
  }
  const storage = resolveStorage(file.storage, dataDir);
  return {
    dataDir,
    clusterName,
    webAddr,
    sshAddr,
    postgresAddr,
    mysqlAddr,
    kubeAddr,
    publicAddr,
    metricsAddr,
    insecureNoTls: flags.insecureNoTls ?? file.insecure_no_tls ?? false,
    tls: file.tls ? { certFile: file.tls.cert_file, keyFile: file.tls.key_file } : undefined,
    storage,
    ...resolveAudit(file.audit, storage, dataDir),
    logLevel: file.log?.level ?? 'info',
    logFormat: resolveLogFormat(flags.logFormat ?? file.log?.format),
    recordings: resolveRecordings(file.recordings, dataDir),
    auth: resolveAuth(file.auth, publicAddr.host),
    heartbeatIntervalMs: parseDuration(file.heartbeat_interval ?? '60s', 'heartbeat_interval'),
    opensshCheckIntervalMs: parseCheckInterval(file.openssh_check_interval ?? '30s'),
    sshService: {
      enabled: file.ssh_service?.enabled ?? true,
      listenAddr: parseHostPort(
        file.ssh_service?.listen_addr ?? '127.0.0.1:3022',
        'ssh_service.listen_addr',
      ),
      labels: file.ssh_service?.labels ?? {},
      commands: (file.ssh_service?.commands ?? []).map((c) => ({ ...c, period: c.period ?? '1h' })),
      ...(file.ssh_service?.sftp_server ? { sftpServer: file.ssh_service.sftp_server } : {}),
    },
    fileTransfer: { maxBytes: file.file_transfer?.max_bytes ?? defaultFileTransferMaxBytes },
    assist: resolveAssist(file.assist),
    sessionOpenLimit: {
      burst: file.session_open_limit?.burst ?? 10,
      perSecond: file.session_open_limit?.per_second ?? 5,
    },
    ssh: {
      keepaliveIntervalMs: parseDuration(
        file.ssh?.keepalive_interval ?? '10s',
        'ssh.keepalive_interval',
      ),
    },
    shutdownGraceMs: parseDuration(file.shutdown_grace ?? '30s', 'shutdown_grace'),
    terminalResumeGraceMs: parseDuration(
      file.terminal_resume_grace ?? '60s',
      'terminal_resume_grace',
    ),
    shutdownDrainMs: parseDuration(file.shutdown_drain ?? 0, 'shutdown_drain'),
    proxyTtlMs: parseProxyTtl(file.proxy_ttl ?? '30s'),
    trustedProxies: (file.trusted_proxies ?? []).map(parseTrustedProxy),
    ...resolveStaticResources(file),
  };
}

/**
 * Where people reach the console when `public_addr` is not set: the address it is served at.
 * Bound to every interface or to loopback, that is `localhost` (the host the "serving the
 * console" line names, a secure context for browsers and a WebAuthn relying-party id); bound to
 * one address, that address. Links, the serving line, ping and WebAuthn then all agree.
 */
export function defaultPublicAddr(webAddr: HostPort): HostPort {
  const { host } = webAddr;
  const local = ['', '0.0.0.0', '::', '::1', 'localhost'].includes(host) || host.startsWith('127.');
  return { host: local ? 'localhost' : host, port: webAddr.port };
}

function resolveLogFormat(value: string | undefined): LogFormat {
  const format = value ?? 'auto';
  if (!(logFormats as readonly string[]).includes(format)) {
    throw new ConfigError(`--log-format must be one of ${logFormats.join(', ')}, got '${format}'`);
  }
  return format as LogFormat;
}

function parseCheckInterval(value: string | number): number {
  const ms = parseDuration(value, 'openssh_check_interval');
  if (ms < 1000) throw new ConfigError('openssh_check_interval must be at least 1s');
  return ms;
}

function resolveStorage(storage: FileConfig['storage'], dataDir: string): StorageConfig {
  if (!storage || storage.type === 'sqlite') {
    return { type: 'sqlite', path: path.resolve(dataDir, storage?.path ?? 'postern.db') };
  }
  return storage;
}

/** `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`: an address and an optional prefix length that fits it. */
function parseTrustedProxy(text: string): string {
  const [address = '', prefix, extra] = text.split('/');
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  const badPrefix = prefix !== undefined && !/^\d{1,3}$/.test(prefix);
  if (!family || extra !== undefined || badPrefix || bits > max) {
    throw new ConfigError(`trusted_proxies: '${text}' is not an IP address or CIDR range`);
  }
  return text;
}

function parseProxyTtl(value: string | number): number {
  const ms = parseDuration(value, 'proxy_ttl');
  if (ms < 3000) throw new ConfigError('proxy_ttl must be at least 3s');
  return ms;
}

function resolveAssist(assist: FileConfig['assist']): AssistConfig | undefined {
  if (!assist) return undefined;
  const { api_url, api_token_file, model } = assist.openai;
  const apiToken = api_token_file
    ? readSecretFile(api_token_file, 'assist.openai.api_token_file')
    : undefined;
  const rateLimit = {
    burst: assist.rate_limit?.burst ?? 10,
    perSecond: (assist.rate_limit?.per_minute ?? 20) / 60,
  };
  return { apiUrl: api_url, apiToken, model, rateLimit };
}
