import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorStatus, type PodObject } from './kube-objects.testkit.js';
import type { PodEvent, PodStore } from './pod-store.testkit.js';
import { includeObjectOf, podTable, wantsTable } from './tables.testkit.js';

/**
 * A watch (`?watch=true`): chunked JSON, one {"type","object"} event per line, open until the
 * client leaves or `timeoutSeconds` runs out. From `resourceVersion` it replays what came
 * after; without one (or "0") it starts with an ADDED event per pod, as the API server does.
 * A resourceVersion older than the history is a 410 Gone ERROR event, which makes clients list
 * again.
 */
export function watchPods(
  pods: PodStore,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  matches: (pod: PodObject) => boolean,
): void {
  const asTable = wantsTable(req.headers.accept);
  const includeObject = includeObjectOf(query);
  let headersSent = false;
  const write = (type: string, object: PodObject, resourceVersion: number) => {
    const payload = asTable
      ? podTable([object], { resourceVersion, includeObject, noHeaders: headersSent })
      : object;
    headersSent = true;
    res.write(`${JSON.stringify({ type, object: payload })}\n`);
  };
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private' });

  const requested = query.get('resourceVersion');
  const fromVersion = requested && requested !== '0' ? Number(requested) : undefined;
  const onEvent = (event: PodEvent) => {
    if (matches(event.object)) write(event.type, event.object, event.resourceVersion);
  };
  const watch = pods.watch(fromVersion ?? pods.resourceVersion, onEvent);
  if (!watch.replay) {
    const gone = errorStatus(410, 'Expired', `too old resource version: ${requested}`);
    res.end(`${JSON.stringify({ type: 'ERROR', object: gone })}\n`);
    return;
  }
  if (fromVersion === undefined) {
    for (const pod of pods.list().filter(matches)) write('ADDED', pod, pods.resourceVersion);
  }
  for (const event of watch.replay) onEvent(event);

  const seconds = Number(query.get('timeoutSeconds'));
  const timer = seconds > 0 ? setTimeout(() => res.end(), seconds * 1000) : undefined;
  res.once('close', () => {
    watch.stop();
    clearTimeout(timer);
  });
}
