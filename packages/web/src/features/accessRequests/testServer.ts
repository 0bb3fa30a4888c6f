import type { AccessRequestJson } from '@postern/contracts';
import { vi } from 'vitest';
import { jsonResponse } from '../../test/authConfig';
import { myRequestFixtures, reviewRequestFixtures } from './fixtures';

export const requestsUrl = '/v1/webapi/sites/localhost/accessrequests';
export const renewUrl = '/v1/webapi/sessions/web/renew';
export const renewed = {
  type: 'bearer',
  token: 'tok-assumed',
  expires_in: 600,
  sessionExpires: '2030-01-01T00:00:00Z',
  sessionInactiveTimeout: 0,
};

/**
 * A fake server for the access request pages: answers by method and URL (an override first),
 * and records every call with its parsed body.
 */
export function stubRequestsServer(
  respond: (method: string, url: string, body: unknown) => Response | undefined = () => undefined,
  one: AccessRequestJson = myRequestFixtures[0]!,
) {
  const calls: [method: string, url: string, body: unknown][] = [];
  const stub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body: unknown = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push([method, url, body]);
    const answer = respond(method, url, body);
    if (answer) return answer;
    if (url === `${requestsUrl}?scope=mine`) return jsonResponse({ items: myRequestFixtures });
    if (url === `${requestsUrl}?scope=review`)
      return jsonResponse({ items: reviewRequestFixtures });
    if (url === renewUrl) return jsonResponse(renewed);
    if (method === 'GET' && url.startsWith(`${requestsUrl}/`)) return jsonResponse(one);
    return jsonResponse({ message: 'ok' });
  });
  vi.stubGlobal('fetch', stub);
  const mutations = () => calls.filter(([method]) => method !== 'GET');
  return { stub, calls, mutations };
}
