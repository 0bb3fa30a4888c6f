import { isIP } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { openBackend } from './backend/index.js';
import { formatHostPort } from './config/address.js';
import type { Config } from './config/config.js';
import { createLogger, logDestination } from './logger.js';
import { backgroundAuditWritten } from './modules/audit/emit.js';
import { openAuditStore, startAuditRetention } from './modules/audit/index.js';
import { SpooledAuditStore } from './modules/audit/spool/index.js';
import { startMetricsListener, type MetricsListener } from './modules/metrics/metrics-listener.js';
import { bootstrapFirstAdmin, recordPublicUrl } from './identity/bootstrap/first-admin.js';
import { DiskUsageMonitor } from './modules/disk-usage/disk-usage.monitor.js';
import { loadOrCreateTls } from './tls/self-signed.js';
import { serverVersion } from './version.js';
import { startWingListeners } from './wings/run-listeners.js';
import { internalWebUrl } from './modules/sessions/peer-proof.js';

/** Where the console build sits in this repository: packages/web/dist beside this package. */
export const defaultWebDistDir = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** `postern start`: opens storage, serves the proxy and console, and stops cleanly on a signal. */
export async function startServer(config: Config, webDistDir = defaultWebDistDir) {
  const destination = logDestination(config.logFormat, process.stdout);
  const logger = createLogger(config.logLevel, destination);
  // Readable lines carry the invite link themselves; JSON lines get a banner on stderr too.
  const readable = destination !== undefined;
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const backend = await openBackend(config.storage);
  // Events the store cannot take wait in a spool in the data dir; a full spool refuses sessions.
  const audit = await SpooledAuditStore.open(
    await openAuditStore(config.audit, config.clusterName, {
      log: (level, message, fields) => logger[level](fields ?? {}, message),
      writerThread: true,
    }),
    {
      ...config.auditSpool,
      clusterName: config.clusterName,
      log: (level, message, fields) => logger[level](fields ?? {}, message),
    },
  );
  const stopRetention = startAuditRetention(
    audit,
    config.auditRetentionMs,
    (removed) => logger.info({ removed }, 'audit retention removed old events'),
    (error) => logger.error({ err: error }, 'audit retention failed'),
  );
  // Said before anything fails: the recordings volume nearing full (log + audit, per crossing).
  const diskMonitor = new DiskUsageMonitor({
    dir: config.recordings.dir,
    warnPercent: config.recordings.diskWarnPercent,
    intervalMs: config.recordings.diskCheckIntervalMs,
    audit,
    log: (level, message, fields) => logger[level](fields ?? {}, message),
  });
  // A bucket has no volume to fill; its own limits are the object store's business.
  if (!config.recordings.s3) diskMonitor.start();
  const https = config.insecureNoTls
    ? undefined
    : await loadOrCreateTls({
        dataDir: config.dataDir,
        configured: config.tls,
        // The app hosts too: `<app>.<public host>` (docs/apps.md).
        hostnames: withAppWildcards([hostname(), config.publicAddr.host]),
      });
  if (config.insecureNoTls) {
    logger.warn('serving plain HTTP (--insecure-no-tls): put a TLS-terminating proxy in front');
  } else if (https) {
    logger.info({ source: https.source }, 'TLS certificate loaded');
  }

  if (config.auth.secondFactor === 'off') {
    logger.warn('auth.second_factor is off: a password alone signs users in');
  }

  const app = await buildApp({
    config,
    backend,
    audit,
    auditHealth: audit,
    webDistDir,
    logger,
    https,
  });
  await app.server.listen({
    host: config.webAddr.host,
    port: config.webAddr.port,
    // Host and port only: the one link to open is the console's, on the public address, below.
    listenTextResolver: (address) => `web listener bound to ${address.replace(/^\w+:\/\//, '')}`,
  });
  const { addresses } = app.context;
  const address = app.server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.webAddr.port;
  addresses.report('web', { host: config.webAddr.host, port });
  // Joins of this proxy's sessions through the other proxies come here (high-availability.md).
  app.context.hub.advertise(
    internalWebUrl(config.webAddr.host, port, https !== undefined),
    https ? String(https.cert) : undefined,
  );
  // Off unless metrics_addr is set: plain HTTP, no authentication (docs/high-availability.md).
  let metricsListener: MetricsListener | undefined;
  if (config.metricsAddr) {
    const { metrics } = app.services;
    metricsListener = await startMetricsListener(config.metricsAddr, () => metrics.render());
    addresses.report('metrics', metricsListener.address);
    logger.info(
      { metricsAddr: formatHostPort(metricsListener.address) },
      `metrics listener bound to ${formatHostPort(metricsListener.address)}`,
    );
  }
  // Before the "serving" line, so ping and that line report each listener's real port.
  const listeners = await startWingListeners(app, (level, message, fields) =>
    logger[level](fields ?? {}, message),
  );
  await audit.emit({ event: 'postern.start', code: 'TPOS001I', version: serverVersion });
  const servesThisHost = listeners.some((listener) => listener.servesThisHost);
  const publicUrl = addresses.publicBaseUrl();
  await recordPublicUrl(backend, publicUrl);
  const invite = await bootstrapFirstAdmin(backend, app.services, publicUrl);
  if (invite) {
    const what = invite.renewed ? 'has not signed in yet' : 'is new';
    if (!readable) {
      // For the person at the terminal; stderr keeps stdout pure JSON for log shippers.
      process.stderr.write(
        `\nThe first admin (${invite.user}) ${what}. Open this one-time link to set it up (valid until ${invite.expiry}):\n\n  ${invite.url}\n\n`,
      );
    }
    logger.info(
      { inviteUrl: invite.url, user: invite.user, expires: invite.expiry },
      `The first admin (${invite.user}) ${what}: open this one-time link to set a password and an authenticator`,
    );
    if (servesThisHost && invite.logins.length > 0) {
      logger.info(
        { logins: invite.logins },
        `${invite.user} can open a terminal on this host as ${invite.logins.join(' or ')} (Servers, then Connect)`,
      );
    } else if (servesThisHost) {
      logger.warn(
        { uid: process.getuid?.() },
        'Postern runs as a user id with no name here, so this host takes no login: run it as a named user or root',
      );
    }
  }
  logger.info(
    { publicAddr: formatHostPort(addresses.publicAddr()) },
    `links use ${publicUrl}; set --public-addr HOST:PORT (or public_addr) to change`,
  );

  // Last: the line means ready. Scripts wait for it and may signal right after; the start
  // command's SIGTERM handler is in place by then, so nothing is cut off half-started.
  const consoleUrl = `${publicUrl}/web`;
  logger.info(
    {
      consoleUrl,
      version: serverVersion,
      cluster: config.clusterName,
      webAddr: formatHostPort({ host: config.webAddr.host, port }),
      ...(metricsListener ? { metricsAddr: formatHostPort(metricsListener.address) } : {}),
      sshAddr: formatHostPort(addresses.of('ssh') ?? config.sshAddr),
      dataDir: config.dataDir,
      storage: config.storage.type,
    },
    `Postern is serving the console at ${consoleUrl}`,
  );

  let stopping: Promise<boolean> | undefined;
  /**
   * Drains first (shutdown_drain): /readyz answers 503 so load balancers stop sending traffic,
   * and new sessions of every kind are refused with "this proxy is shutting down; reconnect"
   * while the live ones go on. Then stops gracefully within shutdown_grace: every live session ends telling its parties why
   * (browser terminals close with 1001, SSH clients get the reason and a disconnect message),
   * its recording is sealed complete and its end event written before storage closes. Resolves
   * false when the grace ran out first (the caller then exits anyway).
   */
  const stop = (signal: string) => {
    stopping ??= (async () => {
      logger.info({ signal, drainMs: config.shutdownDrainMs, draining: true }, 'shutting down');
      app.services.hub.drain();
      // Agents hear it too: they reconnect elsewhere at once when this proxy's tunnel closes.
      app.context.tunnels.drain();
      if (config.shutdownDrainMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      const graceful = (async () => {
        await app.services.hub.shutdown();
        for (const listener of [...listeners].reverse()) await listener.stop();
        await app.server.close();
        await backgroundAuditWritten();
        return true;
      })();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), config.shutdownGraceMs);
        timer.unref();
      });
      const clean = await Promise.race([graceful, graceOver]);
      clearTimeout(timer);
      if (!clean) logger.warn({ graceMs: config.shutdownGraceMs }, 'shutdown_grace ran out');
      await stopRetention();
      await diskMonitor.stop();
      await audit.close();
      await backend.close();
      await metricsListener?.stop();
      logger.info('stopped');
      return clean;
    })();
    return stopping;
  };
  // diskUsage: the recordings volume's last reading (not a metric yet).
  return { app, port, stop, diskUsage: () => diskMonitor.usage() };
}

/** Each host name with the wildcard of the app hosts under it (addresses have none). */
function withAppWildcards(hosts: string[]): string[] {
  return [...new Set(hosts.flatMap((host) => (isIP(host) ? [host] : [host, `*.${host}`])))];
}
