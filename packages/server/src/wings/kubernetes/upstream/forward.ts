import type {
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeEndpoint } from './kube-endpoint.js';
import { kubeStatus, writeStatus } from './kube-status.js';

/** Headers of one connection, never passed on (RFC 9110 §7.6.1), besides those `Connection` names. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

/** The request's headers a proxy passes on: without the hop-by-hop ones and those `drop` names. */
export function passedHeaders(
  headers: IncomingHttpHeaders,
  drop: (name: string) => boolean = () => false,
): OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const passed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name) || named.has(name) || drop(name)) continue;
    passed[name] = value;
  }
  return passed;
}

/**
 * Relays one request to the API server and its answer back, both bodies streamed as they come
 * (a watch or `logs -f` answers for as long as the client stays). `onResponse` learns the status
 * (for the audit). The API server being unreachable is a 502 in Kubernetes' own Status shape,
 * which kubectl prints.
 */
export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: KubeEndpoint,
  path: string,
  headers: OutgoingHttpHeaders,
  onResponse: (status: number) => void = () => undefined,
  /** The request's body, when it was read already (a create judged by its name). */
  body?: Buffer,
): void {
  const upstream = endpoint.request(
    req.method ?? 'GET',
    path,
    body ? withLength(headers, body.length) : headers,
  );
  let answered = false;
  upstream.on('response', (answer) => {
    answered = true;
    onResponse(answer.statusCode ?? 502);
    res.writeHead(answer.statusCode ?? 502, passedHeaders(answer.headers));
    // A watch's first event must not wait for more to fill a buffer.
    res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  upstream.on('error', (error) => {
    if (answered || res.headersSent) return void res.destroy();
    onResponse(502);
    writeStatus(
      res,
      kubeStatus(502, `the Kubernetes API server could not be reached: ${error.message}`),
    );
  });
  // The client leaving ends the upstream request (a watch the client stopped reading).
  res.on('close', () => upstream.destroy());
  if (body) upstream.end(body);
  else req.pipe(upstream);
}

/** The headers of a body sent whole: its length, not the client's framing. */
function withLength(headers: OutgoingHttpHeaders, length: number): OutgoingHttpHeaders {
  const { 'transfer-encoding': _framing, 'content-length': _length, ...rest } = headers;
  return { ...rest, 'content-length': length };
}

/**
 * Relays an upgraded request (port forwarding, in SPDY or WebSocket) byte for byte once the API
 * server switches protocols; a refusal is passed back as the server answered it.
 */
export function forwardUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  endpoint: KubeEndpoint,
  path: string,
  headers: OutgoingHttpHeaders,
  onResponse: (status: number) => void = () => undefined,
): void {
  const upstream = endpoint.request(req.method ?? 'GET', path, {
    ...headers,
    connection: 'Upgrade',
    upgrade: req.headers.upgrade ?? '',
  });
  socket.on('error', () => upstream.destroy());
  upstream.on('upgrade', (answer, upstreamSocket, upstreamHead) => {
    onResponse(answer.statusCode ?? 101);
    socket.write(responseHead(answer));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.on('error', () => socket.destroy());
    socket.on('close', () => upstreamSocket.destroy());
    upstreamSocket.on('close', () => socket.destroy());
    upstreamSocket.pipe(socket);
    socket.pipe(upstreamSocket);
  });
  upstream.on('response', (answer) => {
    // No upgrade: the server's refusal goes back whole, then the connection closes.
    onResponse(answer.statusCode ?? 502);
    socket.write(responseHead(answer, { connection: 'close' }));
    answer.pipe(socket);
  });
  upstream.on('error', (error) => {
    onResponse(502);
    const status = kubeStatus(
      502,
      `the Kubernetes API server could not be reached: ${error.message}`,
    );
    socket.end(rawResponse(502, status));
  });
  upstream.end();
}

/** The status line and headers of an answer, as bytes to write on a raw socket. */
function responseHead(answer: IncomingMessage, override: Record<string, string> = {}): string {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
  const raw = answer.rawHeaders;
  const overridden = new Set(Object.keys(override));
  for (let i = 0; i < raw.length; i += 2) {
    if (!overridden.has(raw[i]!.toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  for (const [name, value] of Object.entries(override)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A whole HTTP/1.1 answer with a JSON body, for a raw socket. */
export function rawResponse(code: number, body: object): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${code} ${code === 403 ? 'Forbidden' : code === 401 ? 'Unauthorized' : 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}
