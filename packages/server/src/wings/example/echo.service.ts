import { createServer, type Server, type Socket } from 'node:net';
import type { HostPort } from '../../config/address.js';

/**
 * The example wing's one service: a TCP echo listener that counts what it served. A real wing
 * would dial its resources here (through the platform's tunnels) and run sessions on the hub.
 */
export class EchoService {
  private served = 0;
  private readonly sockets = new Set<Socket>();

  /** Connections served since start, for the status route and the kinds count. */
  connections(): number {
    return this.served;
  }

  async listen(at: HostPort): Promise<{ address: HostPort; stop: () => Promise<void> }> {
    const server = createServer((socket) => {
      this.served += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      socket.pipe(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at.port, at.host, () => resolve());
    });
    const bound = server.address();
    const port = typeof bound === 'object' && bound ? bound.port : at.port;
    return { address: { host: at.host, port }, stop: () => this.close(server) };
  }

  private close(server: Server): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
