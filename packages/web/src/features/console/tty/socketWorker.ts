/**
 * The terminal's WebSocket, in a dedicated worker (workerSocket.ts is the page's side). The
 * browser hands a socket's data to the thread that owns it through a small pipe; on the page's
 * main thread, xterm's parsing (slices of ~12 ms) and drawing left that pipe full most of the
 * time, and a flood arrived at a third of the rate the socket can carry. Here the thread does
 * nothing else, so the data flows while the page is busy and waits for it as queued messages.
 */
import { handleWorkerSocketCommands, type PortLike } from './workerSocketProtocol';

handleWorkerSocketCommands(self as unknown as PortLike, (url) => new WebSocket(url));
