import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../../config/address.js';
import { expositionContentType } from './exposition.js';

export interface MetricsListener {
  /** The address it bound (port 0 picks one). */
  address: HostPort;
  stop(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format on a listener of its own (`metrics_addr`), plain
 * HTTP and without authentication: bind it to loopback or a private network only. Anything
 * else is a 404.
 */
export async function startMetricsListener(
  at: HostPort,
  render: () => string,
): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('not found\n');
      return;
    }
    let body: string;
    try {
      body = render();
    } catch {
      response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('metrics failed\n');
      return;
    }
    response.writeHead(200, { 'content-type': expositionContentType, 'cache-control': 'no-store' });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: at.host, port: bound.port },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
