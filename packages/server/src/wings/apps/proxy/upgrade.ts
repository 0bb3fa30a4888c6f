import type { ClientRequest, IncomingMessage } from 'node:http';
import { pipeline, type Duplex } from 'node:stream';
import { rawResponseHead } from '../../../net/raw-http.js';
import { basePathOf } from './base-path.js';
import {
  clientClosedRequest,
  replyErrorRaw,
  statusOfFailure,
  UpstreamTimeoutError,
} from './error-replies.js';
import type { ForwardContext } from './forward.js';
import { prepareRequest, reporterFor } from './prepared-request.js';
import type { ProxyTarget } from './proxy-target.js';
import { downstreamResponseHeaders } from './response-headers.js';
import { openUpstreamRequest } from './upstream-request.js';

/**
 * Forwards an Upgrade request (a WebSocket, usually) under the same header rules as any other.
 * The client's socket is Node's no longer, so every answer is written on it raw: the app's 101
 * joins the two sockets byte for byte, any other answer is relayed and ends the socket.
 */
export function upgradeRequest(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: ProxyTarget,
  context: ForwardContext,
): void {
  const report = reporterFor(req, target);
  // From here on the socket is ours: an error on it only ends it.
  socket.on('error', () => socket.destroy());
  const prepared = prepareRequest(req, target, { upgrade: true });
  // An upgrade request has no body: a client that sends one means something else by it.
  if (prepared.refused !== undefined || prepared.framing.kind !== 'none' || toHttp2(req)) {
    replyErrorRaw(socket, 400);
    report(400);
    return;
  }
  let upstreamReq: ClientRequest;
  try {
    upstreamReq = openUpstreamRequest(context.pool, target, prepared.request, { pooled: false });
  } catch {
    replyErrorRaw(socket, 502);
    report(502);
    return;
  }
  const deadline = setTimeout(
    () => upstreamReq.destroy(new UpstreamTimeoutError()),
    context.upstreamTimeoutMs,
  );
  const rules = { ...target, basePath: basePathOf(target.upstream) };
  // Once the app has answered, a later failure only ends the socket: a head is out already.
  let answered = false;
  const clientGone = (): void => {
    clearTimeout(deadline);
    upstreamReq.destroy();
    report(clientClosedRequest);
  };
  socket.once('close', clientGone);

  upstreamReq.on(
    'upgrade',
    (upstreamRes: IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
      answered = true;
      clearTimeout(deadline);
      socket.off('close', clientGone);
      upstream.on('error', () => upstream.destroy());
      if (socket.destroyed) {
        upstream.destroy();
        return;
      }
      const headers = downstreamResponseHeaders(upstreamRes.headersDistinct, rules, {
        upgraded: true,
      });
      socket.write(rawResponseHead(101, headers));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstream.write(head);
      // Each direction ends the other's writing side when it ends; an error in either tears down both.
      const teardown = (error: Error | null | undefined): void => {
        if (error) {
          socket.destroy();
          upstream.destroy();
        }
      };
      pipeline(socket, upstream, teardown);
      pipeline(upstream, socket, teardown);
      report(101);
    },
  );

  upstreamReq.on('response', (upstreamRes: IncomingMessage) => {
    answered = true;
    clearTimeout(deadline);
    socket.off('close', clientGone);
    const status = upstreamRes.statusCode ?? 502;
    const headers = downstreamResponseHeaders(upstreamRes.headersDistinct, rules, {
      upgraded: false,
    });
    // The body's end is the connection's end: the client reads to the close.
    headers.connection = ['close'];
    socket.write(rawResponseHead(status, headers));
    pipeline(upstreamRes, socket, () => socket.destroy());
    report(status);
  });

  upstreamReq.on('error', (error) => {
    clearTimeout(deadline);
    socket.off('close', clientGone);
    if (answered) {
      socket.destroy();
      return;
    }
    const status = statusOfFailure(error);
    replyErrorRaw(socket, status, error);
    report(status);
  });
  upstreamReq.end();
}

/**
 * An upgrade to HTTP/2 (h2c) would carry further requests inside the joined sockets, where no
 * header rule reaches them: a client could send the app any identity header it liked.
 */
function toHttp2(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '')
    .split(',')
    .some((protocol) => /^h2c?$|^http\/2/i.test(protocol.trim()));
}
