import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { errorStatus } from './kube-objects.testkit.js';

/** One request as the fake saw it: what tests assert a proxy sent. */
export interface FakeKubeRequest {
  method: string;
  path: string;
  /** Every value of every query parameter (`command` repeats). */
  query: Record<string, string[]>;
  headers: {
    accept?: string;
    userAgent?: string;
    connection?: string;
    upgrade?: string;
    /** X-Stream-Protocol-Version, one entry per value offered. */
    streamProtocolVersions: string[];
    /** Sec-WebSocket-Protocol, one entry per subprotocol offered. */
    webSocketProtocols: string[];
    /** Every Impersonate-* header (User, Group, Uid, Extra-*), lowercased, all values. */
    impersonate: Record<string, string[]>;
  };
  /** Whether an Authorization header came, whatever it held. */
  authorization: boolean;
  /** Who the fake took the caller for, when it did. */
  user?: { name: string; groups: string[]; via: 'token' | 'client-certificate' };
}

export function describeRequest(req: IncomingMessage): FakeKubeRequest {
  const url = new URL(req.url ?? '/', 'https://fake');
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
  const list = (name: string) =>
    (req.headersDistinct[name] ?? []).flatMap((line) => line.split(',')).map((v) => v.trim());
  const impersonate: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (name.startsWith('impersonate-') && values) impersonate[name] = values;
  }
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query,
    headers: {
      accept: req.headers.accept,
      userAgent: req.headers['user-agent'],
      connection: req.headers.connection,
      upgrade: req.headers.upgrade,
      streamProtocolVersions: list('x-stream-protocol-version'),
      webSocketProtocols: list('sec-websocket-protocol'),
      impersonate,
    },
    authorization: req.headers.authorization !== undefined,
  };
}

/**
 * Who is calling: the bearer token, else a client certificate the fake's CA signed (CN the user,
 * O the groups, as a cluster reads them). Undefined means 401.
 */
export function authenticate(
  req: IncomingMessage,
  token: string,
  clientCertificates: boolean,
): FakeKubeRequest['user'] {
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) {
    return bearer === token
      ? {
          name: 'system:serviceaccount:postern:proxy',
          groups: ['system:serviceaccounts'],
          via: 'token',
        }
      : undefined;
  }
  const socket = req.socket as TLSSocket;
  if (!clientCertificates || !socket.authorized) return undefined;
  const subject = socket.getPeerCertificate().subject;
  const name = [subject?.CN ?? []].flat()[0];
  if (!name) return undefined;
  return { name, groups: [subject.O ?? []].flat(), via: 'client-certificate' };
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-cache, private',
  });
  res.end(text);
}

export function sendStatus(
  res: ServerResponse,
  code: number,
  reason: string,
  message: string,
): void {
  sendJson(res, code, errorStatus(code, reason, message));
}

export const unauthorized = (res: ServerResponse) =>
  sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
