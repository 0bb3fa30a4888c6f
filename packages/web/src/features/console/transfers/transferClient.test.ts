import { describe, expect, it, vi } from 'vitest';
import { downloadFile, transferUrl, uploadFile } from './transferClient';

const endpoint = { clusterId: 'root', serverId: 'db 1', login: 'root' };

/** An XMLHttpRequest stand-in: records what was sent and lets the test answer. */
class FakeRequest {
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  status = 0;
  statusText = '';
  responseText = '';
  aborted = false;
  upload: { onprogress: ((e: ProgressEvent) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true } as ProgressEvent);
  }
  answer(status: number, body = '') {
    this.status = status;
    this.responseText = body;
    this.onload?.();
  }
}

function startUpload(signal = new AbortController().signal) {
  const request = new FakeRequest();
  const onProgress = vi.fn();
  const file = new File(['hello'], 'hello.txt');
  const done = uploadFile({
    url: transferUrl(endpoint, { location: '~', filename: 'hello.txt' }),
    file,
    headers: { Authorization: 'Bearer t', 'X-CSRF-Token': 'c' },
    onProgress,
    signal,
    createRequest: () => request as unknown as XMLHttpRequest,
  });
  return { request, onProgress, done, file };
}

describe('transferUrl', () => {
  it('encodes the server, login and query', () => {
    expect(transferUrl(endpoint, { location: '/tmp/a b', filename: 'x&y' })).toBe(
      '/v1/webapi/sites/root/nodes/db%201/root/scp?location=%2Ftmp%2Fa+b&filename=x%26y',
    );
  });
});

describe('uploadFile', () => {
  it('posts the file as form data with the credentials and reports progress', async () => {
    const { request, onProgress, done, file } = startUpload();
    expect(request.method).toBe('POST');
    expect(request.headers).toMatchObject({ Authorization: 'Bearer t', 'X-CSRF-Token': 'c' });
    expect(request.body).toBeInstanceOf(FormData);
    expect((request.body as FormData).get('file')).toMatchObject({ name: file.name });
    request.progress(3, 10);
    expect(onProgress).toHaveBeenCalledWith(3, 10);
    request.answer(200, '{"path":"/root/hello.txt","bytes":5}');
    await expect(done).resolves.toBeUndefined();
  });

  it('rejects with the server error message', async () => {
    const { request, done } = startUpload();
    request.answer(
      413,
      '{"error":{"message":"the file is larger than the limit","code":"too_large"}}',
    );
    await expect(done).rejects.toThrow('the file is larger than the limit');
  });

  it('aborts the request when cancelled', async () => {
    const controller = new AbortController();
    const { request, done } = startUpload(controller.signal);
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(request.aborted).toBe(true);
  });
});

describe('downloadFile', () => {
  const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])];
  const body = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });

  it('reads the body as it arrives, with progress against content-length', async () => {
    const fetch = vi.fn(async () => new Response(body(), { headers: { 'content-length': '5' } }));
    const onProgress = vi.fn();
    const blob = await downloadFile({
      url: '/x',
      headers: { Authorization: 'Bearer t' },
      onProgress,
      signal: new AbortController().signal,
      fetch,
    });
    expect(onProgress.mock.calls).toEqual([
      [0, 5],
      [3, 5],
      [5, 5],
    ]);
    expect(await bytesOf(blob)).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
    expect(fetch).toHaveBeenCalledWith(
      '/x',
      expect.objectContaining({ headers: { Authorization: 'Bearer t' } }),
    );
  });

  it('rejects with the server error message', async () => {
    const fetch = vi.fn(
      async () =>
        new Response(
          '{"error":{"message":"/nope: no such file or directory","code":"not_found"}}',
          {
            status: 404,
          },
        ),
    );
    await expect(
      downloadFile({
        url: '/x',
        headers: {},
        onProgress: vi.fn(),
        signal: new AbortController().signal,
        fetch,
      }),
    ).rejects.toThrow('/nope: no such file or directory');
  });
});

/** jsdom's Blob has no arrayBuffer(); its FileReader reads one. */
function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error);
    reader.readAsArrayBuffer(blob);
  });
}
