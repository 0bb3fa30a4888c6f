import type { ServerResponse } from 'node:http';

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

export function writeStatus(res: ServerResponse, status: KubeStatus): void {
  const body = JSON.stringify(status);
  res.writeHead(status.code, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
