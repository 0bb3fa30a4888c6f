import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PodStore } from './pod-store.testkit.js';
import { sendStatus } from './requests.testkit.js';

/**
 * `pods/{name}/log`: the container's log as text; `follow=true` keeps the response open and
 * streams what is appended until the client leaves or the pod is deleted. Without `container`
 * a pod of several containers is a 400 naming them, as the API server answers.
 */
export function servePodLog(
  pods: PodStore,
  _req: IncomingMessage,
  res: ServerResponse,
  namespace: string,
  name: string,
  query: URLSearchParams,
): void {
  const pod = pods.get(namespace, name);
  if (!pod) return sendStatus(res, 404, 'NotFound', `pods "${name}" not found`);
  const containers = pod.spec.containers.map((container) => container.name);
  const container = query.get('container') || (containers.length === 1 ? containers[0] : undefined);
  if (!container) {
    const message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    return sendStatus(res, 400, 'BadRequest', message);
  }
  const log = pods.log(namespace, name, container);
  if (!log) {
    return sendStatus(
      res,
      400,
      'BadRequest',
      `container ${container} is not valid for pod ${name}`,
    );
  }
  res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
  res.write(log.text());
  const follow = query.get('follow');
  if (follow !== 'true' && follow !== '1') return void res.end();
  const stop = log.follow(
    (chunk) => res.write(chunk),
    () => res.end(),
  );
  res.once('close', stop);
}
