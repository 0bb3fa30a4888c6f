import { agentPaths } from '@postern/contracts';
import { z } from 'zod';
import { ConfigError } from '../config/config-error.js';
import { answerMessage, postJson, type JsonAnswer } from '../net/post-json.js';

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
 * certificate.
 */
export async function postJoin(
  base: URL,
  body: JoinRequest,
  insecure: boolean,
): Promise<JoinResponse> {
  const url = new URL(agentPaths.join, base);
  let answer: JsonAnswer;
  try {
    answer = await postJson(url, body, {
      insecure,
      timeoutMs: joinTimeoutMs,
      maxBytes: maxResponseBytes,
      insecureHint: 'a self-signed proxy needs --insecure',
    });
  } catch (error) {
    throw new Error(`cannot join through ${base.origin}: ${(error as Error).message}`);
  }
  if (answer.status !== 200) {
    const why = answerMessage(answer);
    if (answer.status >= 400 && answer.status < 500) {
      throw new JoinRefusedError(`the proxy refused to join this host: ${why}`);
    }
    throw new Error(`the proxy failed to join this host: ${why}`);
  }
  const parsed = joinResponseSchema.safeParse(answer.json);
  if (!parsed.success) throw new Error('the proxy answered the join with something unexpected');
  return parsed.data;
}
