import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { basePathOf } from './base-path.js';
import {
  clientClosedRequest,
  replyError,
  statusOfFailure,
  UpstreamTimeoutError,
} from './error-replies.js';
import { prepareRequest, reporterFor } from './prepared-request.js';
import type { ProxyTarget } from './proxy-target.js';
import type { BodyFraming } from './request-headers.js';
import { downstreamResponseHeaders } from './response-headers.js';
import type { UpstreamPool } from './upstream-pool.js';
import { openUpstreamRequest, type UpstreamRequest } from './upstream-request.js';

export interface ForwardContext {
  pool: UpstreamPool;
  upstreamTimeoutMs: number;
  /**
   * Client connections a request was refused on. Node may have parsed the requests pipelined
   * behind the refused one already, by a framing we just said we do not trust: none of them is
   * forwarded.
   */
  refusedConnections: WeakSet<object>;
}

/** Methods a request without a body may be sent again for: the first try had no effect or the same. */
const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: ProxyTarget,
  context: ForwardContext,
): void {
  const report = reporterFor(req, target);
  const prepared = context.refusedConnections.has(req.socket)
    ? { refused: 'an earlier request on this connection was refused' }
    : prepareRequest(req, target, { upgrade: false });
  if (prepared.refused !== undefined) {
    // Framing we refuse is framing we cannot read past: the connection ends with the answer.
    context.refusedConnections.add(req.socket);
    replyError(res, 400, true);
    report(400);
    return;
  }
  new Exchange(req, res, target, context, report, prepared.request, hasBody(prepared.framing));
}

function hasBody(framing: BodyFraming): boolean {
  return framing.kind === 'chunked' || (framing.kind === 'length' && framing.length !== '0');
}

/**
 * One request through the proxy. Both bodies stream with backpressure; whichever side leaves
 * first takes the other down with it, so no socket outlives its exchange.
 */
class Exchange {
  private upstreamReq: ClientRequest | undefined;
  private answered = false;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly target: ProxyTarget,
    private readonly context: ForwardContext,
    private readonly report: (status: number) => void,
    private readonly request: UpstreamRequest,
    private readonly withBody: boolean,
  ) {
    // The deadline for the app's response head; a request body still flowing in pushes it on
    // (the app answers after reading it), a stalled one does not.
    this.deadline = setTimeout(
      () => this.upstreamReq?.destroy(new UpstreamTimeoutError()),
      context.upstreamTimeoutMs,
    );
    res.on('close', () => this.clientClosed());
    // A pooled connection the app closed just as we picked it fails at once and did nothing:
    // a request without a body is sent once more on a fresh one.
    const retries = !withBody && idempotent.has(request.method) ? 1 : 0;
    this.send(retries);
  }

  private send(retries: number): void {
    let upstreamReq: ClientRequest;
    try {
      upstreamReq = openUpstreamRequest(this.context.pool, this.target, this.request, {
        pooled: true,
      });
    } catch {
      this.failed(new Error('request refused by the HTTP client'));
      return;
    }
    this.upstreamReq = upstreamReq;
    upstreamReq.on('response', (upstreamRes) => this.relay(upstreamRes));
    upstreamReq.on('error', (error: NodeJS.ErrnoException) => {
      if (retries > 0 && upstreamReq.reusedSocket && !this.answered && isReset(error)) {
        this.send(retries - 1);
        return;
      }
      this.failed(error);
    });
    if (!this.withBody) {
      upstreamReq.end();
      return;
    }
    this.req.on('data', () => {
      if (!this.answered) this.deadline.refresh();
    });
    this.req.pipe(upstreamReq);
  }

  private relay(upstreamRes: IncomingMessage): void {
    this.answered = true;
    clearTimeout(this.deadline);
    const status = upstreamRes.statusCode ?? 502;
    const { target } = this;
    try {
      const headers = downstreamResponseHeaders(
        upstreamRes.headersDistinct,
        { ...target, basePath: basePathOf(target.upstream) },
        { upgraded: false },
      );
      this.res.writeHead(status, headers);
    } catch {
      // A header Node will not send on (the app's, or a rewrite of it): the app's answer is lost.
      upstreamRes.destroy();
      this.failed(new Error('response head refused by the HTTP server'));
      return;
    }
    this.report(status);
    // pipe, not pipeline: pipeline makes an AbortController per call and aborts it at the end,
    // a DOMException with a stack trace per request (a few % of the CPU at thousands a second).
    // Either side failing ends both; the client sees a cut response, which is the truth. A client
    // that leaves destroys the upstream request (clientClosed), and with it this response.
    upstreamRes.once('error', () => this.res.destroy());
    upstreamRes.once('aborted', () => this.res.destroy());
    upstreamRes.pipe(this.res);
  }

  private failed(error: unknown): void {
    clearTimeout(this.deadline);
    if (this.res.headersSent) {
      // The app's answer broke off midway: cut the client's too rather than let it look whole.
      this.res.destroy();
      return;
    }
    if (this.res.destroyed) return;
    if (this.upstreamReq !== undefined) this.req.unpipe(this.upstreamReq);
    const status = statusOfFailure(error);
    replyError(this.res, status, !this.req.complete, error);
    this.report(status);
  }

  private clientClosed(): void {
    clearTimeout(this.deadline);
    if (this.res.writableFinished) return;
    this.upstreamReq?.destroy();
    this.report(clientClosedRequest);
  }
}

function isReset(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ECONNRESET' || error.code === 'EPIPE';
}
