import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { SpdyConnection, type SpdyConnectionOptions } from './spdy-connection.js';

/** Two ends of one loopback TCP connection: `client` dialled, `server` accepted. */
export async function socketPair(): Promise<{ client: Socket; server: Socket; close(): void }> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<Socket>((resolve) => listener.once('connection', resolve));
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  const server = await accepted;
  listener.close();
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
    },
  };
}

/** A client and a server SpdyConnection talking over loopback TCP. */
export async function spdyPair(options: Partial<SpdyConnectionOptions> = {}) {
  const sockets = await socketPair();
  const client = new SpdyConnection(sockets.client, { ...options, role: 'client' });
  const server = new SpdyConnection(sockets.server, { ...options, role: 'server' });
  return { client, server, sockets, close: () => sockets.close() };
}

/**
 * Everything a stream yields until it ends. Not `for await`: that destroys the stream at the
 * end, which for a Duplex also cuts the side still writing.
 */
export function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('close', () => reject(new Error('the stream closed before its end')));
  });
}

/** Resolves once `check` holds, polling on the event loop (never a fixed sleep). */
export async function until(check: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
