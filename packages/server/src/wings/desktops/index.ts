import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { agentDesktopHeartbeats } from './agent-desktops.js';
import { addDesktopCommands } from './cli/desktops.commands.js';
import { desktopsRoutes } from './desktops.routes.js';
import { DesktopsService } from './desktops.service.js';

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
      clusterName: ctx.config.clusterName,
      active: (name) =>
        ctx.hub.list().some((tracker) => tracker.kind === 'desktop' && tracker.serverId === name),
      proxyServiceName: () => ctx.addresses.publicAddr().host,
    });
  },
  start: async (s) => {
    await s.desktops.start();
  },
  close: async (s) => {
    await s.desktops.close();
  },
  commands: addDesktopCommands,
  kinds: (s) => [{ kind: 'windows_desktop', count: () => s.desktops.count() }],
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
  return { desktops };
}
