import type { ServerResponse } from 'node:http';
import { kubePathPrefix, splitKubeUrl } from '../kube-path.js';

/** Kubernetes' own error body (metav1.Status): kubectl prints its message, by its reason. */
export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  code: number;
}

const reasons: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  502: 'ServiceUnavailable',
  503: 'ServiceUnavailable',
};

export function kubeStatus(code: number, message: string): KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: reasons[code] ?? 'InternalError',
    code,
  };
}

/**
 * Whether a request is kubectl's discovery: GET /api, /apis, a group or version under them,
 * /version or /openapi/… (after /kube/<cluster> where the proxy's path has it). client-go's
 * discovery client decodes no Status from an error: it prints "unknown" for any body but
 * text/plain, whose text it prints as the message.
 */
export function isDiscoveryRequest(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  // Postern's listener has the cluster first; `postern proxy kube` passes kubectl's own paths.
  const path = url?.startsWith(kubePathPrefix) ? splitKubeUrl(url).path : (url ?? '/');
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  if (parts[0] === 'api') return parts.length <= 2;
  if (parts[0] === 'apis') return parts.length <= 3;
  return parts[0] === 'version' || parts[0] === 'openapi';
}

/**
 * Answers with the Status kubectl prints; to its discovery, whose client cannot decode one, the
 * message alone as text, so kubectl shows the reason instead of "unknown".
 */
export function writeStatus(res: ServerResponse, status: KubeStatus): void {
  const asText = isDiscoveryRequest(res.req?.method, res.req?.url);
  const body = asText ? `${status.message}\n` : JSON.stringify(status);
  res.writeHead(status.code, {
    'content-type': asText ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
