import type { IncomingMessage, RequestOptions } from 'node:http';
import type { ConnectionOptions } from 'node:tls';
import { statusSchema, type Status } from './status.js';

/** How to reach an API server: its CA, a client certificate, and the like (node:tls names). */
export type TlsClientOptions = Pick<
  ConnectionOptions,
  'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized' | 'checkServerIdentity' | 'ciphers'
>;

export interface DialOptions {
  /** Sent with the upgrade request: Authorization, Impersonate-*, User-Agent... */
  headers?: Record<string, string | string[]>;
  tls?: TlsClientOptions;
  /**
   * Opens the connection instead of dialling the URL's host (an agent's tunnel): Node's
   * `createConnection`, which may hand the stream over later through its callback.
   */
  createConnection?: CreateConnection;
}

export type CreateConnection = NonNullable<RequestOptions['createConnection']>;

/**
 * The server answered the upgrade with something other than 101, or upgraded to no protocol we
 * offered: what client-go calls an upgrade failure, the one case where kubectl falls back from
 * WebSocket to SPDY. Carries the server's Status when it sent one.
 */
export class UpgradeFailedError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly status?: Status,
  ) {
    super(message);
    this.name = 'UpgradeFailedError';
  }
}

/** The most of a refusal's body that is read, to find the Status in it. */
const maxRefusalBytes = 64 * 1024;

/** Reads a non-101 answer into an UpgradeFailedError (its Status when the body is one). */
export async function upgradeFailure(response: IncomingMessage): Promise<UpgradeFailedError> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      length += (chunk as Buffer).length;
      if (length >= maxRefusalBytes) break;
    }
  } catch {
    // A body cut short still leaves the status code to report.
  }
  response.destroy();
  const text = Buffer.concat(chunks).toString('utf8').slice(0, maxRefusalBytes).trim();
  const code = response.statusCode ?? 0;
  let status: Status | undefined;
  try {
    const parsed = statusSchema.safeParse(JSON.parse(text));
    if (parsed.success) status = parsed.data;
  } catch {
    status = undefined;
  }
  const message = status?.message ?? (text || response.statusMessage || 'no body');
  return new UpgradeFailedError(code, `upgrade refused (${code}): ${message}`, status);
}
