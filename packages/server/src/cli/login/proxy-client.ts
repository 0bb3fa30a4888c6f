import http from 'node:http';
import https from 'node:https';
import type { z } from 'zod';
import { ConfigError } from '../../config/config-error.js';

/** The proxy said no (wrong password, expired request…): its message says why. Exit code 2. */
export class LoginRefusedError extends ConfigError {
  override name = 'LoginRefusedError';
}

/** Anything else: the proxy is unreachable or answered something we cannot read. */
export class ProxyUnreachableError extends Error {
  override name = 'ProxyUnreachableError';
}

const timeoutMs = 30_000;
const maxResponseBytes = 4 * 1024 * 1024;
const certificateCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The bytes a JSON body is sent as: what a signature of the request covers too. */
export function jsonBody(body: unknown): string | undefined {
  return body === undefined ? undefined : JSON.stringify(body);
}

/**
 * JSON calls to a proxy's web API. node:http(s) rather than fetch, because `--insecure` must
 * turn certificate checks off for these requests only, not for the whole process.
 */
export class ProxyClient {
  constructor(
    readonly base: URL,
    private readonly insecure: boolean,
  ) {}

  get<T>(path: string, schema: z.ZodType<T>, headers: Record<string, string> = {}): Promise<T> {
    return this.call('GET', path, schema, undefined, headers);
  }

  post<T>(
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    headers: Record<string, string> = {},
  ): Promise<T> {
    return this.call('POST', path, schema, body, headers);
  }

  private async call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<T> {
    const { status, text } = await this.send(method, path, body, headers);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (status < 200 || status >= 300) {
      // The proxy's errors read {error: {message, code}, message}.
      const message = (json as { message?: unknown } | undefined)?.message;
      const why = typeof message === 'string' ? message : `HTTP ${status}`;
      if (status >= 400 && status < 500) throw new LoginRefusedError(why);
      throw new ProxyUnreachableError(`the proxy at ${this.base.origin} failed: ${why}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ProxyUnreachableError(
        `the proxy at ${this.base.origin} answered ${method} ${path} with something unexpected`,
      );
    }
    return parsed.data;
  }

  private send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    const url = new URL(path, this.base);
    const payload = jsonBody(body);
    const secure = url.protocol === 'https:';
    const transport = secure ? https : http;
    return new Promise((resolve, reject) => {
      const request = transport.request(
        url,
        {
          method,
          headers: {
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : {
                  'content-type': 'application/json',
                  'content-length': String(Buffer.byteLength(payload)),
                }),
            ...headers,
          },
          timeout: timeoutMs,
          ...(secure ? { rejectUnauthorized: !this.insecure } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxResponseBytes) request.destroy(new Error('the answer is too large'));
            else chunks.push(chunk);
          });
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error('the proxy did not answer in time')));
      request.on('error', (error: Error & { code?: string }) => {
        const hint =
          error.code && certificateCodes.has(error.code)
            ? ' (a proxy with a self-signed certificate needs --insecure)'
            : '';
        reject(
          new ProxyUnreachableError(
            `cannot reach the proxy at ${this.base.origin}: ${error.message}${hint}`,
          ),
        );
      });
      request.end(payload);
    });
  }
}
