import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameReader } from './frame-reader.js';
import { encodeFrame, type Frame } from './frames.js';
import { HeaderCompressor } from './header-compression.js';
import { maxDataFrameBytes } from './flow-control.js';
import { SpdyConnection } from './spdy-connection.js';
import type { SpdyStream } from './spdy-stream.js';
import { readAll, socketPair, spdyPair, until } from './spdy.testkit.js';

const window = 64 * 1024;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function openedPair() {
  const connections = await spdyPair({ streamWindow: window, connectionWindow: 4 * window });
  cleanups.push(connections.close);
  const accepted = new Promise<SpdyStream>((resolve) =>
    connections.server.on('stream', (stream: SpdyStream) => {
      stream.reply();
      resolve(stream);
    }),
  );
  const stream = await connections.client.openStream({});
  return { ...connections, stream, peer: await accepted };
}

describe('SPDY/3.1 flow control between two ends that keep windows', () => {
  it('stops a writer at the window while the reader sleeps, then delivers every byte', async () => {
    const { stream, peer } = await openedPair();
    const payload = randomBytes(2 * 1024 * 1024);
    peer.pause();
    stream.end(payload);
    await until(() => stream.sendWindow <= 0, 'the window to run out');
    // Nothing moves while the reader sleeps: the receiver holds one window, no more.
    expect(peer.readableLength).toBeLessThanOrEqual(window);
    expect(stream.writableLength).toBeGreaterThan(payload.length - 2 * window);
    peer.resume();
    expect(digest(await readAll(peer))).toBe(digest(payload));
  });

  it('keeps other streams moving while one reader sleeps (no head-of-line blocking)', async () => {
    const { client, server, stream, peer } = await openedPair();
    peer.pause();
    stream.write(randomBytes(4 * window));
    await until(() => stream.sendWindow <= 0, 'the first stream to stall');
    const second = new Promise<SpdyStream>((resolve) =>
      server.once('stream', (next: SpdyStream) => {
        next.reply();
        resolve(next);
      }),
    );
    const other = await client.openStream({ second: 'yes' });
    const payload = randomBytes(3 * window);
    other.end(payload);
    expect(digest(await readAll(await second))).toBe(digest(payload));
  });
});

describe('SPDY flow control with a peer that keeps no windows (moby/spdystream)', () => {
  async function windowlessPeer() {
    const sockets = await socketPair();
    cleanups.push(sockets.close);
    const server = new SpdyConnection(sockets.server, { role: 'server', streamWindow: window });
    const compressor = new HeaderCompressor();
    cleanups.push(() => compressor.close());
    const frames: Frame[] = [];
    const reader = new FrameReader(1 << 24);
    sockets.client.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    sockets.client.write(
      encodeFrame({
        type: 'syn_stream',
        streamId: 1,
        associatedToStreamId: 0,
        priority: 0,
        fin: false,
        unidirectional: false,
        headerBlock: await compressor.compress({ streamtype: 'stdin' }),
      }),
    );
    return { socket: sockets.client, serverSocket: sockets.server, frames, peer: await accepted };
  }

  it('stops reading the transport when a stream is not read, instead of buffering', async () => {
    const { socket, serverSocket, peer } = await windowlessPeer();
    peer.reply();
    peer.pause();
    const chunk = randomBytes(32 * 1024);
    const frame = encodeFrame({ type: 'data', streamId: 1, fin: false, data: chunk });
    let sent = 0;
    // Like spdystream: write until TCP pushes back, never looking at windows.
    while (socket.write(frame)) sent += chunk.length;
    sent += chunk.length;
    await until(() => serverSocket.isPaused(), 'the server to stop reading');
    expect(peer.readableLength).toBeLessThanOrEqual(window + chunk.length);
    socket.end(encodeFrame({ type: 'data', streamId: 1, fin: true, data: Buffer.alloc(0) }));
    peer.resume();
    expect((await readAll(peer)).length).toBe(sent);
  });

  it('sends past 64 KiB to a peer that never sends WINDOW_UPDATE', async () => {
    const { frames, peer } = await windowlessPeer();
    peer.reply();
    const payload = randomBytes(1024 * 1024);
    peer.end(payload);
    const data = () => frames.filter((frame) => frame.type === 'data');
    await until(() => data().some((frame) => frame.fin), 'the FIN');
    const received = Buffer.concat(data().map((frame) => frame.data));
    expect(digest(received)).toBe(digest(payload));
    expect(Math.max(...data().map((frame) => frame.data.length))).toBeLessThanOrEqual(
      maxDataFrameBytes,
    );
    // It still announced its own window and gave credit back, for peers that do keep windows.
    expect(frames[0]).toMatchObject({ type: 'settings' });
  });
});
