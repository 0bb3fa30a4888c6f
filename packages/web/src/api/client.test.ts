import { describe, expect, it, vi } from 'vitest';
import { ApiError, isLockedError } from './apiError';
import { createApiClient } from './client';
import { createCsrfReader, readStoredToken, storeToken } from './credentials';

type FetchStub = ReturnType<typeof vi.fn<typeof fetch>>;

function clientWith(respond: () => Response | Promise<Response>) {
  const fetchStub: FetchStub = vi.fn<typeof fetch>(async () => respond());
  const api = createApiClient({
    fetch: fetchStub,
    csrfToken: () => 'csrf-1',
    accessToken: () => 'bearer-1',
  });
  return { api, fetchStub };
}

const json = (body: unknown, init?: ResponseInit) =>
  new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' }, ...init });

function requestOf(
  stub: FetchStub,
  call = 0,
): { url: string; init: RequestInit; headers: Headers } {
  const [url, init = {}] = stub.mock.calls[call] ?? [];
  return { url: String(url), init, headers: new Headers(init.headers) };
}

describe('API client requests', () => {
  it('sends every call same-origin, uncached, with JSON, CSRF and bearer headers', async () => {
    const { api, fetchStub } = clientWith(() => json({ ok: 1 }));
    await expect(api.get('/v1/webapi/sites')).resolves.toEqual({ ok: 1 });
    const { url, init, headers } = requestOf(fetchStub);
    expect(url).toBe('/v1/webapi/sites');
    expect(init).toMatchObject({
      method: 'GET',
      mode: 'same-origin',
      credentials: 'same-origin',
      cache: 'no-store',
    });
    expect(headers.get('Accept')).toBe('application/json');
    expect(headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(headers.get('X-CSRF-Token')).toBe('csrf-1');
    expect(headers.get('Authorization')).toBe('Bearer bearer-1');
  });

  it('reads a file as a Blob with the bearer header, and its JSON error as an ApiError', async () => {
    const { api, fetchStub } = clientWith(() => new Response('{"version": 2}\n'));
    const blob = await api.getBlob('/rec?format=cast');
    expect(await blob.text()).toBe('{"version": 2}\n');
    expect(requestOf(fetchStub).headers.get('Authorization')).toBe('Bearer bearer-1');

    const denied = clientWith(() => json({ message: 'access denied' }, { status: 403 }));
    await expect(denied.api.getBlob('/rec')).rejects.toMatchObject({
      status: 403,
      message: 'access denied',
    });
  });

  it('serialises JSON bodies for post, put and delete', async () => {
    const { api, fetchStub } = clientWith(() => json({}));
    await api.post('/a', { x: 1 });
    await api.put('/b', { y: 2 });
    await api.delete('/c');
    await api.post('/d');
    expect(fetchStub.mock.calls.map(([, init]) => [init?.method, init?.body])).toEqual([
      ['POST', '{"x":1}'],
      ['PUT', '{"y":2}'],
      // A JSON Content-Type with an empty body is refused by JSON body parsers.
      ['DELETE', '{}'],
      ['POST', '{}'],
    ]);
  });

  it('uploads FormData without a Content-Type, so the browser adds the boundary', async () => {
    const { api, fetchStub } = clientWith(() => json({ saved: true }));
    const data = new FormData();
    data.append('file', new Blob(['hi']), 'hi.txt');
    await expect(api.postFormData('/upload', data)).resolves.toEqual({ saved: true });
    const { init, headers } = requestOf(fetchStub);
    expect(init.body).toBe(data);
    expect(headers.has('Content-Type')).toBe(false);
    expect(headers.get('X-CSRF-Token')).toBe('csrf-1');
  });

  it('refuses an upload body that is not FormData', async () => {
    const { api, fetchStub } = clientWith(() => json({}));
    await expect(api.postFormData('/upload', { file: 'x' })).rejects.toThrow(
      new Error('data for body is not a type of FormData'),
    );
    expect(fetchStub).not.toHaveBeenCalled();
  });

  it('omits Authorization when there is no token', async () => {
    const fetchStub = vi.fn<typeof fetch>(async () => json({}));
    const api = createApiClient({
      fetch: fetchStub,
      csrfToken: () => '',
      accessToken: () => undefined,
    });
    await api.get('/x');
    expect(requestOf(fetchStub).headers.has('Authorization')).toBe(false);
  });
});

describe('API client errors (spec §8)', () => {
  async function failure(respond: () => Response | Promise<Response>): Promise<unknown> {
    const { api } = clientWith(respond);
    return api.get('/v1/webapi/thing').then(
      () => expect.fail('expected a rejection'),
      (err: unknown) => err,
    );
  }

  it('takes the message from error.message first', async () => {
    const err = await failure(() =>
      json(
        { error: { message: 'access denied to sites', code: 'access_denied' }, message: 'other' },
        { status: 403 },
      ),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      name: 'ApiError',
      message: 'access denied to sites',
      status: 403,
      code: 'access_denied',
    });
    expect((err as ApiError).response.status).toBe(403);
  });

  it('then from message', async () => {
    const err = await failure(() => json({ message: 'bad bearer token' }, { status: 401 }));
    expect(err).toMatchObject({ name: 'ApiError', message: 'bad bearer token', status: 401 });
  });

  it("then from the body's responseText", async () => {
    const err = await failure(() => json({ responseText: 'proxy said no' }, { status: 502 }));
    expect(err).toMatchObject({ message: 'proxy said no', status: 502 });
  });

  it("and finally 'Unknown error', never the HTTP status text", async () => {
    const err = await failure(() => json({ error: {} }, { status: 502, statusText: '' }));
    expect(err).toMatchObject({ name: 'ApiError', message: 'Unknown error', status: 502 });
    const bare = await failure(() =>
      json({}, { status: 500, statusText: 'Internal Server Error' }),
    );
    expect(bare).toMatchObject({ name: 'ApiError', message: 'Unknown error', status: 500 });
  });

  it("reports a non-JSON error body as '{status} - {url}'", async () => {
    const err = await failure(() => new Response('<html>bad gateway</html>', { status: 502 }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toBe('502 - /v1/webapi/thing');
  });

  it("throws the JSON parser's own message for a non-JSON success body", async () => {
    let parserMessage = '';
    try {
      JSON.parse('<html>');
    } catch (e) {
      parserMessage = (e as Error).message;
    }
    const err = await failure(() => new Response('<html>', { status: 200 }));
    expect(err).not.toBeInstanceOf(ApiError);
    expect((err as Error).message).toBe(parserMessage);
  });

  it("turns a network failure into 'Network request failed'", async () => {
    const err = await failure(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(err).toEqual(new Error('Network request failed'));
  });

  it('passes an abort through unchanged (cancellation is not a network error)', async () => {
    const abort = new DOMException('The operation was aborted.', 'AbortError');
    const err = await failure(() => Promise.reject(abort));
    expect(err).toBe(abort);
  });

  it('sends a call once more with the newer token onUnauthorized hands back', async () => {
    const fetchStub = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json({ message: 'bad bearer token' }, { status: 401 }))
      .mockResolvedValueOnce(json({ ok: true }))
      .mockResolvedValueOnce(json({ message: 'bad bearer token' }, { status: 401 }))
      .mockResolvedValueOnce(json({ message: 'bad bearer token' }, { status: 401 }));
    const onUnauthorized = vi.fn(async () => 'bearer-2');
    const api = createApiClient({
      fetch: fetchStub,
      csrfToken: () => '',
      accessToken: () => 'bearer-1',
      onUnauthorized,
    });
    await expect(api.post('/x', { a: 1 })).resolves.toEqual({ ok: true });
    expect(requestOf(fetchStub, 1).headers.get('Authorization')).toBe('Bearer bearer-2');
    expect(requestOf(fetchStub, 1).init.body).toBe('{"a":1}');
    // Only once: a second 401 with the newer token is final.
    await expect(api.get('/y')).rejects.toMatchObject({ status: 401 });
    expect(fetchStub).toHaveBeenCalledTimes(4);
    // The session's own calls never ask.
    onUnauthorized.mockClear();
    fetchStub.mockResolvedValueOnce(json({ message: 'gone' }, { status: 401 }));
    await expect(api.get('/status', { skipSessionCheck: true })).rejects.toMatchObject({
      status: 401,
    });
    expect(onUnauthorized).not.toHaveBeenCalled();
  });

  it('reports a 401 to an authenticated call to onUnauthorized, and still throws', async () => {
    const onUnauthorized = vi.fn();
    const respond = vi
      .fn<() => Response>()
      .mockReturnValueOnce(json({ message: 'you are not signed in' }, { status: 401 }))
      .mockReturnValueOnce(json({ message: 'access denied' }, { status: 403 }));
    let token: string | undefined = 'bearer-1';
    const api = createApiClient({
      fetch: vi.fn<typeof fetch>(async () => respond()),
      csrfToken: () => '',
      accessToken: () => token,
      onUnauthorized,
    });
    await expect(api.get('/x')).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledWith(
      expect.objectContaining({ status: 401 }),
      'bearer-1',
    );
    await expect(api.get('/x')).rejects.toMatchObject({ status: 403 });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    // Without a bearer (the public pages: login, invite) a 401 is just an answer.
    token = undefined;
    respond.mockReturnValueOnce(json({ message: 'invalid credentials' }, { status: 401 }));
    await expect(api.post('/login', {})).rejects.toMatchObject({ message: 'invalid credentials' });
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('tells onError about every error it finally throws, with the call options', async () => {
    const onError = vi.fn();
    const respond = vi
      .fn<() => Response>()
      .mockReturnValueOnce(json({ message: 'locked: under review' }, { status: 403 }))
      .mockReturnValueOnce(json({ ok: true }));
    const api = createApiClient({
      fetch: vi.fn<typeof fetch>(async () => respond()),
      csrfToken: () => '',
      accessToken: () => 'bearer-1',
      onError,
    });
    await expect(api.get('/x', { skipSessionCheck: true })).rejects.toMatchObject({ status: 403 });
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ status: 403, message: 'locked: under review' }),
      { skipSessionCheck: true },
    );
    await api.get('/y');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('isLockedError knows a lock by its 403 and the locked: prefix', () => {
    const error = (status: number, message: string) =>
      new ApiError(message, new Response(null, { status }));
    expect(isLockedError(error(403, 'locked: under review'))).toBe(true);
    expect(isLockedError(error(403, 'access denied'))).toBe(false);
    expect(isLockedError(error(400, 'locked: no'))).toBe(false);
    expect(isLockedError(new Error('locked: plain error'))).toBe(false);
  });

  it('returns undefined for 204 No Content', async () => {
    const { api } = clientWith(() => new Response(null, { status: 204 }));
    await expect(api.delete('/x')).resolves.toBeUndefined();
  });
});

describe('credentials', () => {
  it('reads the CSRF meta tag once and keeps the value', () => {
    const meta = document.createElement('meta');
    meta.name = 'grv_csrf_token';
    meta.content = 'abc';
    document.head.append(meta);
    const read = createCsrfReader(document);
    expect(read()).toBe('abc');
    meta.content = 'changed';
    expect(read()).toBe('abc');
    expect(document.querySelector('meta[name="grv_csrf_token"]')).not.toBeNull();
    meta.remove();
  });

  it('stores the bearer token under grv_teleport_token and rejects junk', () => {
    const token = {
      accessToken: 't',
      expiresIn: 600,
      created: 1,
      sessionExpires: '',
      sessionInactiveTimeout: 0,
    };
    storeToken(token);
    expect(JSON.parse(localStorage.getItem('grv_teleport_token') ?? '')).toEqual(token);
    expect(readStoredToken()).toEqual(token);
    localStorage.setItem('grv_teleport_token', '{not json');
    expect(readStoredToken()).toBeNull();
    localStorage.setItem('grv_teleport_token', '{"accessToken":""}');
    expect(readStoredToken()).toBeNull();
  });
});
