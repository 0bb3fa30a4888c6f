import { afterEach, describe, expect, it, vi } from 'vitest';
import { readStoredToken } from '../../api/credentials';
import { pageLocation } from '../../lib/pageLocation';
import { jsonResponse } from '../../test/authConfig';
import { assumeAccessRequest, dropAssumedRoles, renewSessionWith } from './switchRoles';

const renewed = {
  type: 'bearer',
  token: 'tok-2',
  expires_in: 600,
  sessionExpires: '2030-01-01T00:00:00Z',
  sessionInactiveTimeout: 900000,
};

function stubRenew() {
  const stub = vi.fn(async (_url: string, _init?: RequestInit) => jsonResponse(renewed));
  vi.stubGlobal('fetch', stub);
  const bodies = () => stub.mock.calls.map(([url, init]) => [url, JSON.parse(String(init?.body))]);
  return bodies;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('switching the roles of the session', () => {
  it('renews with the body given and stores the new bearer, as a plain renewal does', async () => {
    const bodies = stubRenew();
    await renewSessionWith({ requestId: 'r-1' }, localStorage, () => 1000);
    expect(bodies()).toEqual([['/v1/webapi/sessions/web/renew', { requestId: 'r-1' }]]);
    expect(readStoredToken()).toEqual({
      accessToken: 'tok-2',
      expiresIn: 600,
      created: 1000,
      sessionExpires: '2030-01-01T00:00:00Z',
      sessionInactiveTimeout: 900000,
    });
  });

  it('assumes a request, or drops every one, then loads the current page again', async () => {
    const bodies = stubRenew();
    const assign = vi.spyOn(pageLocation, 'assign').mockImplementation(() => undefined);
    vi.spyOn(pageLocation, 'current').mockReturnValue('/web/requests?tab=review');
    await assumeAccessRequest('r-1');
    await dropAssumedRoles();
    expect(bodies().map(([, body]) => body)).toEqual([{ requestId: 'r-1' }, { switchback: true }]);
    expect(assign.mock.calls).toEqual([['/web/requests?tab=review'], ['/web/requests?tab=review']]);
  });
});
