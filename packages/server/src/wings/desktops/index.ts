import { listContext } from '../../http/resource-listers.js';
import { desktopRecordingRoutes } from '../../modules/desktop-recordings/desktop-recordings.routes.js';
import { dialTcp } from '../../modules/tunnel/dial-tcp.js';
import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { agentDesktopHeartbeats } from './agent-desktops.js';
import { desktopsRoutes } from './desktops.routes.js';
import { desktopAddress, type DesktopRecord } from './desktop-kind.js';
import { DesktopsService } from './desktops.service.js';
import { DesktopAccess } from './sessions/desktop-access.js';
import { desktopConnectRoutes } from './sessions/desktop-connect.routes.js';
import { DesktopSessions } from './sessions/desktop-sessions.js';

/**
 * Desktops: VNC (and RDP) desktops in the browser through the proxy, which signs in to them
 * itself and relays the session, recorded and ended by locks (docs/desktops.md).
 */
export const desktopsWing = {
  name: 'desktops',
  build: (ctx: ServerContext) => buildDesktops(ctx),
  routes: async (server, s, ctx) => {
    await server.register(desktopsRoutes, {
      desktops: s.desktops,
      active: (name) =>
        ctx.hub.list().some((tracker) => tracker.kind === 'desktop' && tracker.serverId === name),
      proxyServiceName: () => ctx.addresses.publicAddr().host,
      ...listContext(ctx),
    });
    await server.register(desktopConnectRoutes, {
      access: s.desktopAccess,
      sessions: s.desktopSessions,
      dial: s.dialDesktop,
      guard: ctx.guard,
      clusterName: ctx.config.clusterName,
      sessionMfa: ctx.identity.sessionMfa,
    });
    await server.register(desktopRecordingRoutes, {
      blobs: ctx.recordings.blobs,
      audit: ctx.audit,
      guard: ctx.guard,
      clusterName: ctx.config.clusterName,
      pingIntervalMs: ctx.pingIntervalMs,
    });
  },
  start: async (s) => {
    await s.desktops.start();
  },
  close: async (s) => {
    await s.desktopSessions.closeAll();
    await s.desktops.close();
  },
  kinds: (s) => [
    {
      kind: 'windows_desktop',
      count: () => s.desktops.count(),
      find: (name) => s.desktops.find(name),
    },
  ],
} satisfies Wing<DesktopsServices>;

export type DesktopsServices = ReturnType<typeof buildDesktops>;

function buildDesktops(ctx: ServerContext) {
  const desktops = new DesktopsService(ctx.backend, ctx.audit, {
    now: ctx.now,
    onError: ctx.onError('desktops'),
    configured: ctx.config.desktops,
  });
  ctx.agentReports.add(
    'desktop',
    agentDesktopHeartbeats(desktops, ctx.config.heartbeatIntervalMs * 3),
  );
  // A desktop an agent serves is reached through its tunnel; the agent signs in to it.
  const dialDesktop = (desktop: DesktopRecord) =>
    desktop.source === 'agent'
      ? ctx.tunnels.dial({ kind: 'desktop', name: desktop.metadata.name })
      : dialTcp(desktopAddress(desktop));
  const desktopSessions = new DesktopSessions({
    hub: ctx.hub,
    audit: ctx.audit,
    blobs: ctx.recordings.blobs,
    clusterName: ctx.config.clusterName,
    now: ctx.now,
    lineageAlive: (lineage) => ctx.guard.sessions.lineageAlive(lineage),
    onError: ctx.onError('desktop sessions'),
  });
  const desktopAccess = new DesktopAccess({
    desktops,
    subjects: ctx.access,
    locks: ctx.locks,
  });
  return { desktops, desktopSessions, desktopAccess, dialDesktop };
}
