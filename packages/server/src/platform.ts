import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { AccessResolver } from './access-control/access/access-resolver.js';
import { LockWatcher } from './access-control/locks/lock-watcher.js';
import type { Backend } from './backend/index.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/config.js';
import { ListenAddresses } from './config/listen-addresses.js';
import type { AuditStore } from './modules/audit/index.js';
import type { AuditHealth } from './modules/audit/spool/index.js';
import { ClusterSsh } from './modules/trusted-clusters/cluster-ssh.js';
import { ClusterKube } from './modules/trusted-clusters/cluster-kube.js';
import { LeafReachPoint } from './modules/trusted-clusters/leaf-reach.js';
import { ConnectionDiagnostics } from './modules/connection-diagnostics/connection-diagnostics.js';
import { desktopRecordingSealer } from './modules/desktop-recordings/desktop-crash-seal.js';
import { ReadinessService } from './modules/health/readiness.service.js';
import { buildClusterAlerts } from './modules/cluster-alerts/index.js';
import { buildIntegrations } from './modules/integrations/index.js';
import { meteredAudit, ServerMetrics } from './modules/metrics/server-metrics.js';
import { openRecordingStore } from './modules/recordings/open-recording-store.js';
import { DeadProxyRecovery } from './modules/sessions/dead-proxy-recovery.js';
import { SessionHub } from './modules/sessions/session-hub.js';
import { buildTerminalResumes } from './modules/terminal/peer-resume.js';
import { AgentReports, ProxyRegistry, TunnelRegistry } from './modules/tunnel/index.js';
import { perMinute } from './plugins/rate-limit.js';
import { ClusterCa } from './ssh/ca.service.js';

export interface PlatformDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  /** Refuses new sessions while the audit log cannot take events (the spool is full). */
  auditHealth?: AuditHealth;
  /** Time for sessions, tokens and TOTP; tests move it forward instead of waiting. */
  now?: Clock;
  /** The cluster's SSH CAs; loaded (or created on a fresh cluster) from the backend when absent. */
  ca?: ClusterCa;
  /** Terminal and agent-tunnel keepalive pings (default 20 s); tests shorten it. */
  pingIntervalMs?: number;
}

/**
 * What every part and wing builds from: storage, audit, time, the cluster CAs, the watched locks
 * and access (roles and users), the live sessions and their recordings, the agents' tunnels and
 * the addresses the listeners bound. One of each per process, shared by every access protocol.
 */
export async function buildPlatform(deps: PlatformDeps, log: FastifyBaseLogger) {
  const { config, backend } = deps;
  const now = deps.now ?? systemClock;
  // One set of metrics per process; every part writes audit events through the measured store.
  const metrics = new ServerMetrics();
  const audit = meteredAudit(deps.audit, metrics);
  const onError = (what: string) => (error: unknown) =>
    log.warn({ err: error }, `watching ${what} failed; listing again`);
  const ca = deps.ca ?? (await ClusterCa.loadOrCreate(backend, config.clusterName));
  const access = new AccessResolver(backend, onError('roles, users and access requests'), now);
  const locks = new LockWatcher(backend, now, {
    onError: onError('locks'),
    // As the roles are now: a role changed to lock: strict fences what it grants at once.
    // Roles that do not say take the cluster's auth.locking_mode.
    lockingModeOf: (user, roles) =>
      access.roleSetFor(user, roles).options().lockingMode ?? config.auth.lockingMode,
  });
  // One id per process: the registry's, the trackers' (cross-proxy joins) and the spool's owner.
  const proxyId = randomUUID();
  // One blob store for every recording format; a crash's open recordings are sealed (at start
  // in a directory; by a surviving proxy in a shared bucket, docs/high-availability.md).
  const recordings = openRecordingStore(config, {
    owner: proxyId,
    formats: [desktopRecordingSealer],
    onWritten: (bytes) => metrics.recordingBytes.inc({}, bytes),
    onError: (error, what) => log.warn({ err: error }, what),
    onUploaded: (lag) => metrics.recordingUploadLag.observe(lag),
  });
  const hub = new SessionHub({
    proxyId,
    // A dead proxy's trackers must outlive its registry record: the survivors end its sessions
    // from them (dead-proxy-recovery.ts) once the record is gone.
    trackerTtlMs: Math.max(60_000, 2 * config.proxyTtlMs),
    backend,
    audit,
    locks,
    now,
    onError: onError('live sessions'),
    recordings: { store: recordings, onFailure: config.recordings.onFailure },
    accessChanges: access.onChange.bind(access),
    // As access is worked out: the user record's traits (an SSO user's come from their claims).
    traitsOf: (user) => access.users.get(user)?.spec.traits ?? {},
  });
  const pingIntervalMs = deps.pingIntervalMs ?? 20_000;
  // Terminals whose connection dropped, kept for their owners to resume, here or through a peer.
  const terminalResumes = buildTerminalResumes({
    graceMs: config.terminalResumeGraceMs,
    hub,
    backend,
    now,
    pingIntervalMs,
  });
  const addresses = new ListenAddresses(config);
  // This proxy in the cluster's list (announced once listening); agents are told the list so
  // they keep a tunnel to every proxy (docs/high-availability.md).
  const proxies = new ProxyRegistry({
    id: proxyId,
    ttlMs: config.proxyTtlMs,
    refreshMs: config.proxyTtlMs / 3,
    backend,
    address: () => addresses.publicBaseUrl(),
    onError: (error, what) => log.warn({ err: error }, what),
    onChange: (list) => tunnels.setProxies(list),
  });
  const tunnels = new TunnelRegistry({ proxyId: proxies.id });
  // What a proxy that died leaves (its sessions' ends, its open recordings), finished by us.
  const recovery = new DeadProxyRecovery({
    backend,
    audit,
    now,
    proxies,
    sessions: hub,
    recordings,
    onError: (error, what) => log.warn({ err: error }, what),
    onRecovered: ({ sessions, recordings: sealed }) =>
      log.info({ sessions, recordings: sealed }, 'finished what a stopped proxy left'),
  });
  // Filled by the wings as they build: what agents may serve and how their heartbeats are read.
  const agentReports = new AgentReports();
  metrics.readFrom({
    sessionsByKind: () => hub.activeByKind(),
    agentTunnels: () => tunnels.count(),
    recordingUploadsWaiting: () => recordings.uploadsWaiting(),
  });
  const readiness = new ReadinessService({
    backend,
    caches: () => [
      { name: 'roles', loaded: access.roles.loaded, stale: access.roles.stale },
      { name: 'users', loaded: access.users.loaded, stale: access.users.stale },
      { name: 'locks', loaded: locks.isLoaded(), stale: locks.isStale() },
    ],
    draining: () => hub.draining,
    metrics,
  });
  // Notifies reviewers of access requests; built here since it needs the watched users (their
  // e-mail) and the listeners' addresses (which it may not target).
  const integrations = buildIntegrations({
    backend,
    audit,
    now,
    users: access.users,
    addresses,
    onError: (error) => log.warn({ err: error }, 'integration delivery bookkeeping failed'),
  });
  return {
    config,
    backend,
    audit,
    auditHealth: deps.auditHealth,
    now,
    ca,
    /** Watched locks: `lockFor`/`isLocked`, and a 'lock' event when one comes into force. */
    locks,
    /** Watched roles and users: what the guard computes each caller's access from. */
    access,
    recordings,
    hub,
    terminalResumes,
    tunnels,
    /** The cluster's proxies: this one's heartbeat record and the watched list. */
    proxies,
    agentReports,
    /** `ssh -J` between trusted clusters: the SSH proxy and the trusted-clusters part meet here. */
    clusterSsh: new ClusterSsh(),
    /** kubectl between trusted clusters: the Kubernetes wing and the trusted-clusters part. */
    clusterKube: new ClusterKube(),
    /** A leaf's resources for this root's users: the trusted-clusters part and the wings. */
    leafReach: new LeafReachPoint(),
    /** Filled by the wings as they build: each kind's connection test (Discover). */
    connectionDiagnostics: new ConnectionDiagnostics(),
    addresses,
    /** The process's metrics (`/metrics` on metrics_addr) and readiness (`/readyz`). */
    metrics,
    readiness,
    /** Integrations (chat, e-mail, webhook) and the notifier of access requests. */
    integrations,
    /** The alerts an admin posts to everyone in the console (`postern alerts`). */
    clusterAlerts: buildClusterAlerts({ backend, audit, now }),
    onError,
    pingIntervalMs,
    loginRateLimit: perMinute(config.auth.loginRateLimit),
    /** Loads the watched state, then the live sessions that are judged against it. */
    start: async () => {
      await Promise.all([access.start(), locks.start(), proxies.start()]);
      await hub.start();
      recovery.start();
    },
    close: async () => {
      integrations.close();
      await recovery.close();
      await proxies.close();
      tunnels.close();
      await hub.close();
      await recordings.close();
      await Promise.all([access.close(), locks.close()]);
    },
  };
}

export type Platform = Awaited<ReturnType<typeof buildPlatform>>;
