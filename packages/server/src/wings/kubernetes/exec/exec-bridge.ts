import type { Readable, Writable } from 'node:stream';
import { failureStatus, type Status } from '../httpstream/status.js';
import type { ExecClientSession, ExecServerSession } from '../remotecommand/index.js';

/** After the status, the last output gets this long to pass before the session is finished. */
const drainWaitMs = 2_000;

/**
 * Relays an exec without a terminal between kubectl (`server`) and the cluster (`client`), each
 * stream as it is: stdin on (its end is the command's EOF), stdout and stderr back, then the
 * command's status once its output has passed. kubectl leaving closes the cluster's side.
 */
export async function bridgeExec(
  server: ExecServerSession,
  client: ExecClientSession,
): Promise<Status> {
  if (server.stdin && client.stdin) server.stdin.pipe(client.stdin);
  // A channel nobody reads would hold the whole connection back.
  else server.stdin?.resume();
  // WebSocket on both sides: output messages pass whole (the channel bytes are the same in v4
  // and v5), neither taken apart into streams nor copied; the streams below then only end.
  if (server.outputSink && client.divertOutput) client.divertOutput(server.outputSink);
  const relayed = [relay(client.stdout, server.stdout), relay(client.stderr, server.stderr)];
  void server.closed.then(() => client.close());
  const status = await client.status;
  await Promise.race([Promise.all(relayed), delay(drainWaitMs)]);
  await server.finish(status).catch(() => server.abort());
  return status.status ? status : failureStatus('the exec ended without a status');
}

/** Pipes without ending the target (finishing the session ends it); resolves at the source's end. */
function relay(from: Readable | undefined, to: Writable | undefined): Promise<void> {
  if (!from) return Promise.resolve();
  if (!to) {
    from.resume();
  } else {
    from.pipe(to, { end: false });
  }
  return new Promise((resolve) => {
    from.once('end', resolve);
    from.once('close', resolve);
    from.once('error', () => resolve());
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
