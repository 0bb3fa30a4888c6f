import http, { type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { CreateConnection, TlsClientOptions } from '../httpstream/dial-options.js';
import type { KubeTarget } from './kube-target.js';
import { preferredCiphers } from '../../../tls/preferred-ciphers.js';

/**
 * How requests reach one cluster's API server: straight over TLS with the cluster's credential
 * (`directEndpoint`), or as plain HTTP through an agent's tunnel, whose agent adds both
 * (`tunnelEndpoint`). Callers give the API path (`/api/v1/...?query`) and the headers they chose.
 */
export interface KubeEndpoint {
  request(method: string, path: string, headers: OutgoingHttpHeaders): ClientRequest;
  /**
   * What an upgrade's own client (exec and attach, dialled anew by the proxy) needs to reach
   * `path`: the URL, TLS, the credential's headers, and for a tunnel the connection.
   */
  dialTarget(path: string): DialTarget;
  close(): void;
}

export interface DialTarget {
  url: URL;
  tls?: TlsClientOptions;
  headers: Record<string, string>;
  createConnection?: CreateConnection;
}

/** A pooled connection unused this long is closed. */
const idleSocketMs = 60_000;

export function directEndpoint(target: KubeTarget): KubeEndpoint {
  const hostname = target.server.hostname.replace(/^\[(.*)\]$/, '$1');
  const agent = new https.Agent({
    keepAlive: true,
    scheduling: 'lifo',
    timeout: idleSocketMs,
    ca: target.ca,
    cert: target.clientCert,
    key: target.clientKey,
    // SNI takes a name, never an address.
    servername: target.servername ?? (isIP(hostname) === 0 ? hostname : undefined),
    rejectUnauthorized: !target.insecureSkipVerify,
    ciphers: preferredCiphers,
    // client-go would speak HTTP/2; one HTTP/1.1 connection per request in flight is simpler
    // to relay and every API server speaks it.
    ALPNProtocols: ['http/1.1'],
  });
  const base = target.server.pathname.replace(/\/+$/, '');
  const credential: Record<string, string> = target.token
    ? { authorization: `Bearer ${target.token}` }
    : {};
  return {
    request: (method, path, headers) =>
      https.request({
        agent,
        host: hostname,
        port: target.server.port || 443,
        method,
        path: base + path,
        headers: {
          ...headers,
          host: target.server.host,
          ...credential,
        },
      }),
    dialTarget: (path) => ({
      url: new URL(base + path, target.server.origin),
      tls: {
        ca: target.ca,
        cert: target.clientCert,
        key: target.clientKey,
        servername: target.servername ?? (isIP(hostname) === 0 ? hostname : undefined),
        rejectUnauthorized: !target.insecureSkipVerify,
        ciphers: preferredCiphers,
      },
      headers: credential,
    }),
    close: () => agent.destroy(),
  };
}

/**
 * Plain HTTP over a stream `dial` opens through an agent's tunnel, one per request: the agent
 * serves HTTP on it and forwards each request with its kubeconfig's credential (agent/kube-forwarder.ts).
 */
export function tunnelEndpoint(dial: () => Promise<Duplex>): KubeEndpoint {
  // Node takes a socket given later through `created`; the request waits meanwhile.
  const createConnection: CreateConnection = (_options, created) => {
    dial().then(
      (stream) => created(null, stream),
      (error: unknown) =>
        created(
          error instanceof Error ? error : new Error(String(error)),
          undefined as unknown as Duplex,
        ),
    );
    return undefined;
  };
  return {
    request: (method, path, headers) =>
      // No agent: with one, Node would dial a socket itself; this stream is the request's own.
      http.request({ host: 'kubernetes', method, path, headers, createConnection }),
    dialTarget: (path) => ({
      url: new URL(path, 'http://kubernetes'),
      headers: {},
      createConnection,
    }),
    close: () => undefined,
  };
}
