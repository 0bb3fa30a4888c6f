import http from 'node:http';
import https from 'node:https';
import { agentPaths } from '@postern/contracts';
import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';

export interface JoinRequest {
  token: string;
  hostname: string;
  hostPublicKey: string;
  subKind: 'postern';
  os: string;
  labels: Record<string, string>;
}

const joinResponseSchema = z.object({
  nodeId: z.string().min(1),
  hostCertificate: z.string().min(1),
  userCaKeys: z.array(z.string()).min(1),
  hostCaKeys: z.array(z.string()),
  clusterName: z.string(),
});
export type JoinResponse = z.infer<typeof joinResponseSchema>;

/** The proxy refused the join (bad token, bad input): its message says why. Bad input, so exit 2. */
export class JoinRefusedError extends ConfigError {
  override name = 'JoinRefusedError';
}

const joinTimeoutMs = 30_000;
const maxResponseBytes = 1024 * 1024;

/**
 * `POST /v1/agent/join`: the token and the host's public key buy a node id and a host
 * certificate. node:https rather than fetch, because `insecure` must turn certificate checks off
 * for this one request, not for the whole process.
 */
export function postJoin(base: URL, body: JoinRequest, insecure: boolean): Promise<JoinResponse> {
  const url = new URL(agentPaths.join, base);
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
        timeout: joinTimeoutMs,
        ...(url.protocol === 'https:' ? { rejectUnauthorized: !insecure } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) return request.destroy(new Error('join answer too large'));
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            resolve(readAnswer(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
          } catch (error) {
            reject(error as Error);
          }
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('the proxy did not answer in time')));
    request.on('error', (error) =>
      reject(new Error(`cannot join through ${base.origin}: ${describeNetworkError(error)}`)),
    );
    request.end(payload);
  });
}

function readAnswer(status: number, text: string): JoinResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (status !== 200) {
    // The proxy's errors read {error: {message, code}, message}.
    const message = (json as { message?: unknown } | undefined)?.message;
    const why = typeof message === 'string' ? message : `HTTP ${status}`;
    if (status >= 400 && status < 500) {
      throw new JoinRefusedError(`the proxy refused to join this host: ${why}`);
    }
    throw new Error(`the proxy failed to join this host: ${why}`);
  }
  const answer = joinResponseSchema.safeParse(json);
  if (!answer.success) throw new Error('the proxy answered the join with something unexpected');
  return answer.data;
}

/** Certificate problems get a hint, since `--insecure` is the usual answer for a self-signed proxy. */
function describeNetworkError(error: Error & { code?: string }): string {
  const certificateCodes = [
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  ];
  if (error.code && certificateCodes.includes(error.code)) {
    return `${error.message} (a self-signed proxy needs --insecure)`;
  }
  return error.message;
}
