import type { AddressInfo } from 'node:net';
import type {
  AppResource,
  DatabaseResource,
  DesktopResource,
  KubeClusterResource,
} from '@postern/contracts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, type App, type AppDeps } from '../app.js';
import { parseHostPort } from '../config/address.js';
import { openBackend, type Backend } from '../backend/index.js';
import { authFileSchema, resolveAuth, type AuthFileConfig } from '../config/auth-config.js';
import {
  resolveConfig,
  type AssistConfig,
  type AuditStorageConfig,
  type Config,
  type StorageConfig,
} from '../config/config.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import { SpooledAuditStore, type AuditSpoolOptions } from '../modules/audit/spool/index.js';
import { sessionCookieName } from '../http/request-identity.js';
import { csrfCookieName } from '../plugins/csrf.js';

export interface TestApp extends App {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  /** The app's clock: real time plus an offset that tests move forward. */
  clock: TestClock;
  /** The origin a browser on the public address sends (https://proxy.test:3080). */
  origin: string;
  /** The double-submit CSRF pair a page load gives a browser: cookie and header. */
  csrf: { token: string; cookie: string; headers: Record<string, string> };
  /** Headers of a signed-in browser whose user holds `roles` (a session made directly). */
  signIn(roles: string[], user?: string): Promise<SignedInHeaders>;
  /** Listens on 127.0.0.1 on a port the OS picks: the port, and `http://127.0.0.1:<port>`. */
  listenOnLoopback(): Promise<{ port: number; baseUrl: string }>;
  close(): Promise<void>;
}

/** Headers of a signed-in browser: always its cookies and bearer, perhaps CSRF header and origin. */
export interface SignedInHeaders {
  cookie: string;
  authorization: string;
  [name: string]: string;
}

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** A console build stand-in: the same placeholders and layout the real build has. */
export const testIndexHtml = `<!doctype html><html><head>
<meta name="grv_csrf_token" content="__POSTERN_CSRF_TOKEN__">
<meta name="grv_bearer_token" content="__POSTERN_BEARER_TOKEN__">
<script src="/web/config.js"></script><script type="module" src="/web/assets/index-abc123.js"></script>
</head><body><div id="app"></div></body></html>`;

export interface TestAppOptions {
  storage?: StorageConfig;
  audit?: AuditStorageConfig;
  /**
   * The `auth:` section, as a config file writes it. Tests get a generous login rate limit
   * unless they set one, since every injected request comes from the same address.
   */
  auth?: AuthFileConfig;
  logger?: FastifyBaseLogger;
  /** Puts the audit store behind the spool (as `postern start` does), with these settings. */
  auditSpool?: Partial<Omit<AuditSpoolOptions, 'clusterName'>>;
  /** file_transfer.max_bytes; tests of the limit keep it small. */
  fileTransferMaxBytes?: number;
  /** session_open_limit; generous unless set, as tests open many sessions as one user. */
  sessionOpenLimit?: { burst: number; perSecond: number };
  /** Serve HTTPS with this certificate once listening (default: plain HTTP). */
  https?: { cert: string; key: string };
  /** ssh.keepalive_interval in ms; tests of a frozen node keep it short. */
  sshKeepaliveIntervalMs?: number;
  /** The wings to serve instead of the registry's (the example wing's test adds its own). */
  wings?: AppDeps['wings'];
  /** Applications of the config file (docs/apps.md). */
  apps?: AppResource[];
  /** Databases of the config file (docs/databases.md). */
  databases?: DatabaseResource[];
  /** Kubernetes clusters of the config file (docs/kubernetes.md). */
  kubeClusters?: KubeClusterResource[];
  /** The assistant's model (docs/assist.md): a fake chat API's address, in tests. */
  assist?: Omit<AssistConfig, 'rateLimit'> & Partial<Pick<AssistConfig, 'rateLimit'>>;
  /** Desktops of the config file (docs/desktops.md). */
  desktops?: DesktopResource[];
  /** public_addr (default proxy.test:3080); port 0 means the port the app listens on. */
  publicAddr?: string;
  /** insecure_no_tls: public URLs (what agents are told, for one) say http://. */
  insecureNoTls?: boolean;
  /** trusted_proxies: whose X-Forwarded-For is believed. */
  trustedProxies?: string[];
  /** cluster_name (default test-cluster): trusted clusters' tests run a root and a leaf. */
  clusterName?: string;
  /** heartbeat_interval in ms (agents' and leaf clusters'); tests of heartbeats keep it short. */
  heartbeatIntervalMs?: number;
  /** mysql_addr: the native MySQL listener, started with the wings' listeners. */
  mysqlAddr?: string;
  /** WebSocket ping interval in ms (default 20 s); tests of a peer gone silent keep it short. */
  pingIntervalMs?: number;
  /** terminal_resume_grace in ms (default 60 s); tests of a resume that comes too late shorten it. */
  terminalResumeGraceMs?: number;
}

/**
 * A real app, by default on a memory backend and a SQLite audit log in a temp dir; nothing
 * listens. Pass PostgreSQL storage to run several apps on one database, as several proxies do.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-app-'));
  const webDistDir = path.join(dir, 'web');
  await mkdir(path.join(webDistDir, 'assets'), { recursive: true });
  await writeFile(path.join(webDistDir, 'index.html'), testIndexHtml);
  await writeFile(path.join(webDistDir, 'assets', 'index-abc123.js'), 'console.log("app");\n');
  await writeFile(
    path.join(webDistDir, 'favicon.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
  );

  const config = resolveConfig({
    dataDir: dir,
    clusterName: options.clusterName ?? 'test-cluster',
    publicAddr: options.publicAddr ?? 'proxy.test:3080',
  });
  config.storage = options.storage ?? { type: 'memory' };
  if (options.audit) config.audit = options.audit;
  if (options.fileTransferMaxBytes) config.fileTransfer.maxBytes = options.fileTransferMaxBytes;
  config.sessionOpenLimit = options.sessionOpenLimit ?? { burst: 10_000, perSecond: 10_000 };
  if (options.apps) config.apps = options.apps;
  if (options.databases) config.databases = options.databases;
  if (options.kubeClusters) config.kubeClusters = options.kubeClusters;
  if (options.desktops) config.desktops = options.desktops;
  // The allowance of model requests is the production default unless a test names its own.
  if (options.assist) {
    config.assist = { rateLimit: { burst: 10, perSecond: 20 / 60 }, ...options.assist };
  }
  if (options.insecureNoTls) config.insecureNoTls = true;
  if (options.trustedProxies) config.trustedProxies = options.trustedProxies;
  if (options.heartbeatIntervalMs) config.heartbeatIntervalMs = options.heartbeatIntervalMs;
  if (options.mysqlAddr) config.mysqlAddr = parseHostPort(options.mysqlAddr, 'mysqlAddr');
  if (options.terminalResumeGraceMs !== undefined) {
    config.terminalResumeGraceMs = options.terminalResumeGraceMs;
  }
  if (options.sshKeepaliveIntervalMs) {
    config.ssh.keepaliveIntervalMs = options.sshKeepaliveIntervalMs;
  }
  const auth = authFileSchema.parse({ login_rate_limit: 100_000, ...options.auth });
  config.auth = resolveAuth(auth, config.publicAddr.host);

  let offset = 0;
  const clock: TestClock = {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
  const backend = await openBackend(config.storage);
  const plainAudit = await openAuditStore(config.audit, config.clusterName);
  const audit = options.auditSpool
    ? await SpooledAuditStore.open(plainAudit, {
        ...config.auditSpool,
        log: () => {},
        ...options.auditSpool,
        clusterName: config.clusterName,
      })
    : plainAudit;
  const app = await buildApp({
    config,
    backend,
    audit,
    ...(audit instanceof SpooledAuditStore ? { auditHealth: audit } : {}),
    webDistDir,
    now: clock.now,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.https ? { https: options.https } : {}),
    ...(options.wings ? { wings: options.wings } : {}),
    ...(options.pingIntervalMs ? { pingIntervalMs: options.pingIntervalMs } : {}),
  });
  const csrfToken = randomBytes(32).toString('hex');
  const origin = 'https://proxy.test:3080';

  return {
    ...app,
    config,
    backend,
    audit,
    clock,
    origin,
    csrf: {
      token: csrfToken,
      cookie: `${csrfCookieName}=${csrfToken}`,
      headers: { cookie: `${csrfCookieName}=${csrfToken}`, 'x-csrf-token': csrfToken, origin },
    },
    async signIn(roles, user = 'alice') {
      const session = await app.services.sessions.create(user, roles);
      return {
        cookie: `${sessionCookieName}=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      };
    },
    async listenOnLoopback() {
      await app.server.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.server.address() as AddressInfo;
      return { port, baseUrl: `http://127.0.0.1:${port}` };
    },
    async close() {
      await app.server.close();
      await audit.close();
      await backend.close();
      // A recording may still be sealing into the dir as the app closes: retry the removal.
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
