import { pageOrigin, socketBearerToken } from '../../api/websocket';
import type { AssistDeps } from './assistSocket';

/** The browser's: a WebSocket on the page's origin, the stored bearer, a random run id. */
export function browserAssistDeps(): AssistDeps {
  return {
    createSocket: (url) => new WebSocket(url),
    token: () => socketBearerToken(),
    origin: pageOrigin(),
    newExecutionId: randomUuid,
  };
}

/**
 * A version 4 UUID. `crypto.randomUUID` exists only in secure contexts, and a console reached
 * over plain HTTP (a test proxy by its address) still has `getRandomValues`.
 */
export function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
