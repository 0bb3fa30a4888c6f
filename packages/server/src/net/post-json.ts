import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

export interface JsonAnswer {
  status: number;
  /** The parsed body, or undefined when it was not JSON. */
  json: unknown;
}

/** Network failures, in words that name the usual fix for a self-signed proxy. */
export class PostJsonError extends Error {
  override name = 'PostJsonError';
}

const certificateCodes = [
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
];

/**
 * POSTs JSON to another Postern proxy (an agent's join, a leaf's validate) and reads its JSON
 * answer, whatever the status. node:https rather than fetch, because `insecure` must turn
 * certificate checks off for this one request, not for the whole process.
 */
export function postJson(
  url: URL,
  body: unknown,
  options: {
    insecure: boolean;
    timeoutMs: number;
    maxBytes: number;
    insecureHint: string;
    /**
     * A stream the caller dialled (a leaf's tunnel, which is its own TLS): the request is plain
     * HTTP over it, and the connection closes after the answer.
     */
    over?: Duplex;
    /** More request headers (a leaf session's cookie and bearer, for a call as its user). */
    headers?: Record<string, string>;
  },
): Promise<JsonAnswer> {
  const payload = JSON.stringify(body);
  const { over } = options;
  const transport = url.protocol === 'https:' && !over ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...options.headers,
          ...(over ? { connection: 'close' } : {}),
        },
        timeout: options.timeoutMs,
        ...(over ? { createConnection: () => asSocket(over) } : {}),
        ...(url.protocol === 'https:' ? { rejectUnauthorized: !options.insecure } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) return request.destroy(new Error('answer too large'));
          chunks.push(chunk);
        });
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: response.statusCode ?? 0, json: parseOrUndefined(text) });
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('the proxy did not answer in time')));
    request.on('error', (error: Error & { code?: string }) => {
      const hint =
        error.code && certificateCodes.includes(error.code) ? ` (${options.insecureHint})` : '';
      reject(new PostJsonError(`${error.message}${hint}`));
    });
    request.end(payload);
  });
}

/**
 * A stream as Node's HTTP client uses a socket: it calls these on its socket, and a tunnel has
 * no TCP options to set, so they do nothing.
 */
export function asSocket(stream: Duplex): Duplex {
  const socket = stream as Duplex & Record<string, unknown>;
  for (const method of ['setKeepAlive', 'setNoDelay', 'setTimeout', 'ref', 'unref']) {
    if (typeof socket[method] !== 'function') socket[method] = () => socket;
  }
  return socket;
}

/** The message of a proxy's error answer (`{error: {message, code}, message}`), or the status. */
export function answerMessage(answer: JsonAnswer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : `HTTP ${answer.status}`;
}

/** JSON text parsed, or undefined when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
