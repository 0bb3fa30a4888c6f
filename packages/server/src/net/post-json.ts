import http from 'node:http';
import https from 'node:https';

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
  options: { insecure: boolean; timeoutMs: number; maxBytes: number; insecureHint: string },
): Promise<JsonAnswer> {
  const payload = JSON.stringify(body);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
        timeout: options.timeoutMs,
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

/** The message of a proxy's error answer (`{error: {message, code}, message}`), or the status. */
export function answerMessage(answer: JsonAnswer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : `HTTP ${answer.status}`;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
