import { apiPaths } from '@postern/contracts';
import { errorMessageOf } from '../../../api';

/**
 * Moving one file between the browser and a server (docs/file-transfer.md), framework-free.
 * Uploads use XMLHttpRequest, the only browser API that reports upload progress; downloads read
 * the fetch body as it arrives, so progress follows content-length.
 */

export interface TransferEndpoint {
  clusterId: string;
  serverId: string;
  login: string;
}

export type ProgressListener = (loaded: number, total: number | undefined) => void;

export function transferUrl(
  endpoint: TransferEndpoint,
  query: {
    location: string;
    filename?: string;
    /** A moderated session's approval (moderatedTransfers.ts): the transfer it allows. */
    approval?: { moderatedSessionId: string; fileTransferRequestId: string };
  },
): string {
  const params = new URLSearchParams({ location: query.location });
  if (query.filename) params.set('filename', query.filename);
  if (query.approval) {
    params.set('moderatedSessionId', query.approval.moderatedSessionId);
    params.set('fileTransferRequestId', query.approval.fileTransferRequestId);
  }
  const path = apiPaths.fileTransfer(endpoint.clusterId, endpoint.serverId, endpoint.login);
  return `${path}?${params.toString()}`;
}

export interface UploadOptions {
  url: string;
  file: File;
  headers: Record<string, string>;
  onProgress: ProgressListener;
  signal: AbortSignal;
  createRequest?: () => XMLHttpRequest;
}

/** Sends the file as multipart/form-data (spec §5). Rejects with an AbortError when cancelled. */
export function uploadFile(options: UploadOptions): Promise<void> {
  const xhr = options.createRequest?.() ?? new XMLHttpRequest();
  return new Promise<void>((resolve, reject) => {
    if (options.signal.aborted) return reject(abortError());
    xhr.open('POST', options.url);
    for (const [name, value] of Object.entries(options.headers)) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('Accept', 'application/json');
    // The body counts the form's framing too: a few hundred bytes more than the file.
    xhr.upload.onprogress = (event) =>
      options.onProgress(event.loaded, event.lengthComputable ? event.total : undefined);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      reject(new Error(messageOf(xhr.responseText, xhr.status, xhr.statusText)));
    };
    xhr.onerror = () => reject(new Error('Network request failed'));
    xhr.onabort = () => reject(abortError());
    options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', options.file, options.file.name);
    xhr.send(form);
  });
}

export interface DownloadOptions {
  url: string;
  headers: Record<string, string>;
  onProgress: ProgressListener;
  signal: AbortSignal;
  fetch: typeof fetch;
}

/** The file's bytes, read as they arrive (progress against content-length). */
export async function downloadFile(options: DownloadOptions): Promise<Blob> {
  let response: Response;
  try {
    response = await options.fetch(options.url, {
      headers: options.headers,
      signal: options.signal,
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (err) {
    if (isAbortError(err)) throw err;
    throw new Error('Network request failed');
  }
  if (!response.ok) {
    throw new Error(messageOf(await response.text(), response.status, response.statusText));
  }
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : undefined;
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  options.onProgress(0, total);
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.byteLength;
      options.onProgress(loaded, total);
    }
  }
  return new Blob(chunks as BlobPart[], { type: 'application/octet-stream' });
}

/** Hands a downloaded file to the browser's downloads, under `name`. */
export function saveBlob(blob: Blob, name: string, doc: Document = document): void {
  const url = URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  doc.body.append(link);
  link.click();
  link.remove();
  // The browser reads the blob after the click returns; give it time before letting go.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export const isAbortError = (err: unknown) =>
  err instanceof DOMException && err.name === 'AbortError';

export const abortError = () => new DOMException('The transfer was cancelled', 'AbortError');

/** Spec §8: the body's error.message, else message, else the status. */
function messageOf(body: string, status: number, statusText: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const fallback = statusText || `HTTP ${status}`;
  return errorMessageOf(json) || fallback;
}
