import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { OutgoingHeaders } from './headers.js';
import type { ProxyTarget } from './proxy-target.js';
import type { UpstreamPool } from './upstream-pool.js';

export interface UpstreamRequest {
  method: string;
  /** The request target at the upstream (base path included). */
  path: string;
  headers: OutgoingHeaders;
}

/**
 * Starts the request to the upstream: over the pool's keep-alive agent, over a connection of its
 * own (`pooled: false`, for upgrades, which keep their socket), or over the stream the target's
 * `connect` opens. Throws when Node refuses the request's shape (a header value it cannot send).
 */
export function openUpstreamRequest(
  pool: UpstreamPool,
  target: ProxyTarget,
  request: UpstreamRequest,
  options: { pooled: boolean },
): ClientRequest {
  const { upstream } = target;
  const secure = upstream.protocol === 'https:';
  const hostname = upstream.hostname.replace(/^\[(.*)\]$/, '$1');
  const tlsOptions: tls.ConnectionOptions = secure
    ? {
        // SNI takes a name, never an address.
        servername: isIP(hostname) === 0 ? hostname : '',
        rejectUnauthorized: !target.insecureSkipVerify,
        ALPNProtocols: ['http/1.1'],
      }
    : {};
  const common = {
    host: hostname,
    port: upstream.port || (secure ? 443 : 80),
    method: request.method,
    path: request.path,
    headers: singleLines(request.headers),
    ...tlsOptions,
  };
  const client = secure ? https : http;
  if (options.pooled && target.agent !== undefined) {
    return client.request({ ...common, agent: target.agent });
  }
  if (target.connect !== undefined) {
    // No agent: the stream is this request's alone.
    return client.request({
      ...common,
      createConnection: viaConnect(target.connect, secure, tlsOptions),
    });
  }
  const agent = options.pooled ? pool.agentFor(upstream, target.insecureSkipVerify) : false;
  return client.request({ ...common, agent });
}

/** Node's agent wants one string for a header like Host; a list only where there are several lines. */
function singleLines(headers: OutgoingHeaders): Record<string, string | string[]> {
  const lines: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(headers)) {
    lines[name] = values.length === 1 ? values[0]! : values;
  }
  return lines;
}

type CreateConnection = NonNullable<http.RequestOptions['createConnection']>;

function viaConnect(
  connect: NonNullable<ProxyTarget['connect']>,
  secure: boolean,
  tlsOptions: tls.ConnectionOptions,
): CreateConnection {
  const open = (stream: Duplex): Duplex =>
    secure ? tls.connect({ ...tlsOptions, socket: stream }) : stream;
  return (_options, created) => {
    const opened = connect();
    if (!(opened instanceof Promise)) return open(opened);
    // Node takes a socket given later through `created`; the request waits for it meanwhile (and
    // its head deadline runs). Node reads no socket when there is an error.
    opened.then(
      (stream) => created(null, open(stream)),
      (error: unknown) => created(asError(error), undefined as unknown as Duplex),
    );
    return undefined;
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
