import { afterEach, describe, expect, it } from 'vitest';
import { FrameReader } from './frame-reader.js';
import { encodeFrame, goAwayStatus, rstStatus, SpdyProtocolError, type Frame } from './frames.js';
import { HeaderCompressor } from './header-compression.js';
import { SpdyConnection } from './spdy-connection.js';
import type { SpdyStream } from './spdy-stream.js';
import { readAll, socketPair, spdyPair, until } from './spdy.testkit.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function pair() {
  const connections = await spdyPair();
  cleanups.push(connections.close);
  return connections;
}

/** The server's next stream, replied to. */
function nextStream(server: SpdyConnection): Promise<SpdyStream> {
  return new Promise((resolve) =>
    server.once('stream', (stream: SpdyStream) => {
      stream.reply();
      resolve(stream);
    }),
  );
}

describe('SpdyConnection', () => {
  it('opens a stream with headers, carries data both ways and half-closes with FIN', async () => {
    const { client, server } = await pair();
    const accepted = nextStream(server);
    const stream = await client.openStream({ streamType: 'stdin', port: ['1', '2'] });
    const peer = await accepted;
    expect(stream.id).toBe(1);
    expect(peer.id).toBe(1);
    expect(peer.headers).toEqual({ streamtype: ['stdin'], port: ['1', '2'] });
    expect(peer.header('streamType')).toBe('stdin');

    stream.end('to the server');
    expect((await readAll(peer)).toString()).toBe('to the server');
    peer.end('and back');
    expect((await readAll(stream)).toString()).toBe('and back');
  });

  it('lets the server open streams too, with even ids', async () => {
    const { client, server } = await pair();
    const accepted = nextStream(client);
    const stream = await server.openStream({ kind: 'push-free' });
    expect(stream.id).toBe(2);
    expect((await accepted).header('kind')).toBe('push-free');
  });

  it('holds data written to an accepted stream until it is replied to', async () => {
    const { client, server } = await pair();
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const opening = client.openStream({ a: 'b' });
    const peer = await accepted;
    peer.write('early');
    peer.end();
    peer.reply({ ok: 'yes' });
    const stream = await opening;
    expect(stream.replyHeaders).toEqual({ ok: ['yes'] });
    expect((await readAll(stream)).toString()).toBe('early');
  });

  it('rejects openStream when the peer resets the stream, and tells the other side', async () => {
    const { client, server } = await pair();
    server.on('stream', (stream: SpdyStream) => stream.reset(rstStatus.refusedStream));
    await expect(client.openStream({ a: 'b' })).rejects.toThrow(/status 3/);
  });

  it('ends a stream quietly on RST_STREAM, with the status on the stream', async () => {
    const { client, server } = await pair();
    const accepted = nextStream(server);
    const stream = await client.openStream({});
    const peer = await accepted;
    const reset = new Promise<number>((resolve) => stream.once('reset', resolve));
    peer.reset(rstStatus.cancel);
    expect(await reset).toBe(rstStatus.cancel);
    expect(stream.destroyed).toBe(true);
    expect(stream.resetStatus).toBe(rstStatus.cancel);
  });

  it('refuses streams when nobody listens for them', async () => {
    const { client } = await pair();
    await expect(client.openStream({})).rejects.toThrow(/status 3/);
  });

  it('refuses to send headers a peer would kill the connection for', async () => {
    const { client, server } = await pair();
    await expect(client.openStream({ Connection: 'close' })).rejects.toThrow(/forbids/);
    await expect(client.openStream({ '': 'nameless' })).rejects.toThrow(/empty/);
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const opening = client.openStream({ fine: 'yes' });
    const peer = await accepted;
    expect(() => peer.reply({ bad: 'a\0b' })).toThrow(/NUL/);
    peer.reply();
    // The refused headers cost nothing: the stream still opens with the reply that followed.
    expect((await opening).id).toBe(peer.id);
  });

  it('answers PING', async () => {
    const { client, server } = await pair();
    expect(await client.ping()).toBeGreaterThanOrEqual(0);
    expect(await server.ping()).toBeGreaterThanOrEqual(0);
  });

  it('sends GOAWAY on close, after the data queued before it', async () => {
    const { client, server } = await pair();
    const accepted = nextStream(server);
    const stream = await client.openStream({});
    const peer = await accepted;
    const wentAway = new Promise<number>((resolve) => client.once('goaway', resolve));
    peer.end('last words');
    await new Promise((resolve) => peer.once('finish', resolve));
    await server.close();
    expect(await wentAway).toBe(1);
    expect(await client.closed).toBeUndefined();
    // The client read nothing before the connection ended; what had arrived is still there.
    expect((await readAll(stream)).toString()).toBe('last words');
  });
});

describe('SpdyConnection with a broken peer', () => {
  async function rawPeer() {
    const sockets = await socketPair();
    cleanups.push(sockets.close);
    const server = new SpdyConnection(sockets.server, { role: 'server' });
    const frames: Frame[] = [];
    const reader = new FrameReader(1 << 24);
    sockets.client.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
    return { server, socket: sockets.client, frames };
  }

  it('ends the connection with GOAWAY PROTOCOL_ERROR on garbage, never throwing', async () => {
    const { server, socket, frames } = await rawPeer();
    socket.write(Buffer.from([0x80, 0x07, 0x00, 0x01, 0, 0, 0, 0])); // SPDY version 7
    const error = await server.closed;
    expect(error).toBeInstanceOf(SpdyProtocolError);
    await until(() => frames.some((frame) => frame.type === 'goaway'), 'GOAWAY');
    expect(frames.find((frame) => frame.type === 'goaway')).toMatchObject({
      status: goAwayStatus.protocolError,
    });
  });

  it('ends the connection when a header block does not inflate', async () => {
    const { server, socket } = await rawPeer();
    server.on('stream', () => undefined);
    socket.write(
      encodeFrame({
        type: 'syn_stream',
        streamId: 1,
        associatedToStreamId: 0,
        priority: 0,
        fin: false,
        unidirectional: false,
        headerBlock: Buffer.from('not a zlib stream'),
      }),
    );
    expect(await server.closed).toBeInstanceOf(SpdyProtocolError);
  });

  it('resets a stream whose header block breaks the rules, and goes on', async () => {
    const { server, socket, frames } = await rawPeer();
    const opened: SpdyStream[] = [];
    server.on('stream', (stream: SpdyStream) => opened.push(stream));
    const compressor = new HeaderCompressor();
    const synStream = (streamId: number, headerBlock: Buffer) =>
      encodeFrame({
        type: 'syn_stream',
        streamId,
        associatedToStreamId: 0,
        priority: 0,
        fin: false,
        unidirectional: false,
        headerBlock,
      });
    // One pair, name "a", value "x" and an empty value after a NUL: a stream error (2.6.10).
    const broken = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 0x61, 0, 0, 0, 2, 0x78, 0]);
    socket.write(synStream(1, await compressor.compressBlock(broken)));
    socket.write(synStream(3, await compressor.compress({ fine: 'yes' })));
    await until(() => opened.length === 1, 'the second stream');
    expect(opened[0]!.id).toBe(3);
    expect(frames).toContainEqual({
      type: 'rst_stream',
      streamId: 1,
      status: rstStatus.protocolError,
    });
    compressor.close();
  });

  it('handles every frame that came before the transport ended, header blocks and all', async () => {
    const { server, socket } = await rawPeer();
    const opened = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const compressor = new HeaderCompressor();
    const synStream = encodeFrame({
      type: 'syn_stream',
      streamId: 1,
      associatedToStreamId: 0,
      priority: 0,
      fin: false,
      unidirectional: false,
      headerBlock: await compressor.compress({ streamtype: 'stdin' }),
    });
    const data = encodeFrame({ type: 'data', streamId: 1, fin: true, data: Buffer.from('last') });
    // All in one write, then the end: the block inflates asynchronously while the end arrives.
    socket.end(Buffer.concat([synStream, data]));
    const stream = await opened;
    expect((await readAll(stream)).toString()).toBe('last');
    compressor.close();
  });

  it('ends the connection when streams are opened out of order', async () => {
    const { server, socket } = await rawPeer();
    server.on('stream', () => undefined);
    const compressor = new HeaderCompressor();
    for (const streamId of [3, 1]) {
      socket.write(
        encodeFrame({
          type: 'syn_stream',
          streamId,
          associatedToStreamId: 0,
          priority: 0,
          fin: false,
          unidirectional: false,
          headerBlock: await compressor.compress({}),
        }),
      );
    }
    expect(await server.closed).toBeInstanceOf(SpdyProtocolError);
    compressor.close();
  });
});
