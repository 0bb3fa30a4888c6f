import type { Duplex } from 'node:stream';

/**
 * The first bytes a peer sends, as one chunk; the stream is paused right after, so what comes
 * next waits for whoever reads on (a TLS handshake over the same socket) instead of being lost.
 * Rejects with `closedWithout` when the peer closes before sending anything, and with the
 * stream's own error if it fails.
 */
export function firstChunk(stream: Duplex, closedWithout: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      cleanup();
      stream.pause();
      resolve(chunk);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error(closedWithout));
    };
    stream.on('data', onData);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
