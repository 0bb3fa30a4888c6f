import { connect } from 'node:net';
import type { ForwardedConnection } from '../../wings/kubernetes/portforward/index.js';

/**
 * Joins one forwarded connection to a TCP port on the loopback, as the kubelet joins it to the
 * pod's port: bytes both ways, each side's end passed on, and the error stream ended when both
 * directions are done. A refused dial is told on the error stream in the kubelet's words.
 */
export function forwardToTcp(
  connection: ForwardedConnection,
  target: number,
  podName: string,
): void {
  const socket = connect(target, '127.0.0.1');
  const { data } = connection;
  socket.once('connect', () => {
    data.pipe(socket);
    socket.pipe(data);
  });
  socket.once('error', (error) => {
    connection.fail(
      `error forwarding port ${connection.port} to pod ${podName}, uid : failed to connect to localhost:${connection.port} inside namespace: ${error.message}`,
    );
  });
  socket.once('close', () => connection.done());
  // The client reset the data stream (kubectl does once it read the end): stop the dial's work.
  data.once('close', () => socket.destroy());
}
