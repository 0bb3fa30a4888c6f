import {
  agentPaths,
  trustedClusterValidateResponseSchema,
  type TrustedCluster,
} from '@postern/contracts';
import { proxyBaseUrl } from '../../agent/proxy-address.js';
import { badParameter } from '../../errors.js';
import { answerMessage, postJson, type JsonAnswer } from '../../net/post-json.js';
import type { ClusterKey } from './cluster-keys.js';
import type { RootTrust } from './trusted-clusters.store.js';
import { z } from 'zod';

const answerSchema = trustedClusterValidateResponseSchema.extend({
  host_certificate: z
    .string()
    .min(1)
    .max(16 * 1024),
});

/** The root's web address from `spec.web_proxy_addr` (`host:port` is HTTPS, as for agents). */
export function rootBaseUrl(address: string): URL {
  try {
    return proxyBaseUrl(address);
  } catch {
    throw badParameter(
      `spec.web_proxy_addr: expected host:port or an https:// URL, got '${address}'`,
    );
  }
}

/**
 * Asks the root named by a trusted cluster to trust this (leaf) cluster: the token, this
 * cluster's name and its tunnel key buy the root's identity key and a tunnel certificate. Every
 * failure is the admin's to fix (the token, the address, the name), so it is a 400 that says so.
 */
export async function askRootToTrust(
  resource: TrustedCluster,
  leaf: { name: string; key: ClusterKey },
  options: { insecure: boolean; now: () => number },
): Promise<RootTrust> {
  const base = rootBaseUrl(resource.spec.web_proxy_addr);
  let answer: JsonAnswer;
  try {
    answer = await postJson(
      new URL(agentPaths.trustedClusterValidate, base),
      {
        token: resource.spec.token,
        root_name: resource.metadata.name,
        leaf_name: leaf.name,
        leaf_public_key: leaf.key.openSsh,
      },
      {
        insecure: options.insecure,
        timeoutMs: 15_000,
        maxBytes: 64 * 1024,
        insecureHint: 'a self-signed root needs POSTERN_INSECURE_TLS=1 on this cluster',
      },
    );
  } catch (error) {
    throw badParameter(
      `cannot reach the root cluster at ${base.origin}: ${(error as Error).message}`,
    );
  }
  if (answer.status !== 200) {
    throw badParameter(`the root cluster refused to trust this cluster: ${answerMessage(answer)}`);
  }
  const parsed = answerSchema.safeParse(answer.json);
  if (!parsed.success) {
    throw badParameter(`${base.origin} answered with something other than a Postern root cluster`);
  }
  const { cluster_name: rootName } = parsed.data;
  if (rootName !== resource.metadata.name) {
    throw badParameter(
      `metadata.name: the root cluster at ${base.origin} is named ${rootName}, not ${resource.metadata.name}: a trusted cluster takes its root's name`,
    );
  }
  return {
    identityKey: parsed.data.identity_key,
    hostCertificate: parsed.data.host_certificate,
    validatedAt: new Date(options.now()).toISOString(),
  };
}
