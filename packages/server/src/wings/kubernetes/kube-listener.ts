import { acceptProxied, reportTlsPeer, TrustedProxies } from '../../net/proxy-protocol.js';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import type { KubeApiProxy } from './kube-api-proxy.js';
import type { KubeCa } from './kube-ca.js';
import { closeAfterResponse } from '../../modules/health/drain-connections.js';
import { renewingListenerTls } from '../../tls/listener-tls.js';

/**
 * The Kubernetes listener: TLS with the Kubernetes CA's server certificate, asking for a client
 * certificate of the same CA, and HTTP/1.1 on top, served by the API proxy. It takes connections
 * from the web port whose TLS server name is the listener's (`kube.postern.internal`, routed
 * before TLS starts), and listens on a port of its own when `kube_addr` is set.
 */
export async function createKubeServer(deps: {
  ca: KubeCa;
  serverNames: string[];
  proxy: KubeApiProxy;
  /** True while the proxy drains before it stops (drain.ts explains the `Connection: close`). */
  draining?: () => boolean;
  /** Balancers whose PROXY protocol header names the client on `kube_addr` (trusted_proxies). */
  trustedProxies?: TrustedProxies;
  /** How long each of the listener's own certificates is valid (tests shorten it). */
  certTtlMs?: number;
  /** Told when a renewal of the listener's certificate failed (it is tried again). */
  renewalFailed?: (error: unknown) => void;
}): Promise<{ server: Server; take: (socket: Socket) => void; close: () => void }> {
  // A proxy that runs for longer than the certificate is valid serves a new one before then.
  const tls = await renewingListenerTls(deps.ca, deps.serverNames, {
    renewed: (options) => server.setSecureContext(options),
    ttlMs: deps.certTtlMs,
    failed: deps.renewalFailed,
  });
  const sockets = new Set<Socket>();
  const server = createServer(
    {
      ...tls.options,
      requestCert: true,
      // A request without a certificate gets a Status kubectl prints, not a TLS alert.
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      handshakeTimeout: 10_000,
      headersTimeout: 10_000,
    },
    (req, res) => {
      if (deps.draining?.()) closeAfterResponse(res);
      deps.proxy.request(req, res);
    },
  );
  server.on('upgrade', (req, socket, head) => deps.proxy.upgrade(req, socket, head));
  // Connections to kube_addr may start with a PROXY header from a trusted balancer; those the
  // web port hands over (`take`) had theirs read there. Either way TLS sockets learn it.
  const emit = server.emit.bind(server) as (event: string, ...args: unknown[]) => boolean;
  const handedOver = new WeakSet<Socket>();
  const trusted = deps.trustedProxies ?? new TrustedProxies([]);
  server.emit = ((event: string, ...args: unknown[]) => {
    const socket = args[0] as Socket;
    if (event === 'connection' && !handedOver.has(socket)) {
      acceptProxied(socket, trusted, (accepted) => {
        handedOver.add(accepted);
        emit('connection', accepted);
      });
      return true;
    }
    if (event === 'secureConnection') reportTlsPeer(socket);
    return emit(event, ...args);
  }) as typeof server.emit;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // No deadline on bodies and answers: watches and exec sessions last as long as they are used.
  server.requestTimeout = 0;
  server.setTimeout(0);
  return {
    server,
    take: (socket) => {
      handedOver.add(socket);
      server.emit('connection', socket);
    },
    close: () => {
      tls.stop();
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
