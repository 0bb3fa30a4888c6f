import type { IncomingMessage } from 'node:http';
import { basePathOf, upstreamTarget } from './base-path.js';
import { checkRequest, pathOf } from './request-check.js';
import { upstreamRequestHeaders, type BodyFraming } from './request-headers.js';
import type { ProxyTarget } from './proxy-target.js';
import type { UpstreamRequest } from './upstream-request.js';

export type Prepared =
  { refused: string } | { refused?: undefined; request: UpstreamRequest; framing: BodyFraming };

/** The client's request as the upstream will get it, or why it is refused. */
export function prepareRequest(
  req: IncomingMessage,
  target: ProxyTarget,
  options: { upgrade: boolean },
): Prepared {
  const check = checkRequest(req);
  if (check.refused !== undefined) return check;
  const headers = upstreamRequestHeaders(req.headersDistinct, {
    target,
    clientAddress: req.socket.remoteAddress,
    framing: check.framing,
    upgrade: options.upgrade,
  });
  const path = upstreamTarget(basePathOf(target.upstream), req.url ?? '/');
  return { request: { method: req.method ?? 'GET', path, headers }, framing: check.framing };
}

/** Calls the target's onRequestDone once, whatever happens after. */
export function reporterFor(req: IncomingMessage, target: ProxyTarget): (status: number) => void {
  let reported = false;
  return (status) => {
    if (reported) return;
    reported = true;
    target.onRequestDone?.({ method: req.method ?? 'GET', path: pathOf(req.url), status });
  };
}
