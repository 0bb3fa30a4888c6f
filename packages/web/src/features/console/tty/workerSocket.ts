import type { WebSocketLike } from './TtyClient';
import { WorkerSocket } from './workerSocketProtocol';

/**
 * The console's terminal sockets: each in a dedicated worker (socketWorker.ts), so that output
 * keeps arriving while xterm parses and draws on the page. Without workers (or when one cannot
 * be created), a plain WebSocket on the page.
 */
export function createTerminalSocket(url: string): WebSocketLike {
  if (typeof Worker === 'undefined') return new WebSocket(url);
  let worker: Worker;
  try {
    worker = new Worker(new URL('./socketWorker.ts', import.meta.url), {
      type: 'module',
      name: 'terminal socket',
    });
  } catch {
    return new WebSocket(url);
  }
  const socket = new WorkerSocket(url, worker, () => worker.terminate());
  worker.onerror = (event) => {
    event.preventDefault();
    socket.fail('the terminal connection stopped: its worker failed');
  };
  return socket;
}
