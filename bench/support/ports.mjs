// Loopback ports for the benches' own servers.
import { connect, createServer } from 'node:net';

/** A port the kernel just handed out on 127.0.0.1 (the race until a server binds it is harmless here). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) =>
    server.once('error', reject).listen(0, '127.0.0.1', resolve),
  );
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts connections on 127.0.0.1:`port` now. */
export function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
