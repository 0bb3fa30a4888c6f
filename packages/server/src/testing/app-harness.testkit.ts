import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../app.js';
import { openBackend } from '../backend/index.js';
import {
  resolveConfig,
  type AuditStorageConfig,
  type Config,
  type StorageConfig,
} from '../config/config.js';
import { openAuditStore, type AuditStore } from '../modules/audit/index.js';
import { sessionCookieName } from '../plugins/access-guard.js';

export interface TestApp extends App {
  config: Config;
  audit: AuditStore;
  /** Headers of a signed-in browser whose user holds `roles`. */
  signIn(roles: string[], user?: string): Promise<Record<string, string>>;
  close(): Promise<void>;
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
    clusterName: 'test-cluster',
    publicAddr: 'proxy.test:3080',
  });
  config.storage = options.storage ?? { type: 'memory' };
  if (options.audit) config.audit = options.audit;
  const backend = await openBackend(config.storage);
  const audit = await openAuditStore(config.audit, config.clusterName);
  const app = await buildApp({ config, backend, audit, webDistDir });

  return {
    ...app,
    config,
    audit,
    async signIn(roles, user = 'alice') {
      const session = await app.services.sessions.create(user, roles);
      return {
        cookie: `${sessionCookieName}=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      };
    },
    async close() {
      await app.server.close();
      await audit.close();
      await backend.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
