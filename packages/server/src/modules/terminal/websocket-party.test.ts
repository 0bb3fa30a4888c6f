import { decodeEnvelopeBytes, terminalMessageTypes as T } from '@postern/contracts';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { maxOutputFrameBytes, WebSocketParty } from './websocket-party.js';

function fakeSocket() {
  const frames: { type: string; body: Buffer }[] = [];
  const socket = {
    OPEN: 1,
    readyState: 1,
    closedWith: undefined as number | undefined,
    send(frame: Uint8Array) {
      // Copy, as the real socket may still hold the bytes when the party moves on.
      const { type, body } = decodeEnvelopeBytes(new Uint8Array(frame));
      frames.push({ type, body: Buffer.from(body) });
    },
    close(code: number) {
      this.closedWith = code;
      this.readyState = 3;
    },
  };
  return {
    socket,
    frames,
    party: new WebSocketParty(socket as unknown as WebSocket, 'alice', [], 'peer'),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
function bytesOf(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + seed) % 251;
  return bytes;
}

describe('WebSocketParty', () => {
  it('sends the output of one I/O callback as one r frame, once that callback is done', async () => {
    const { party, frames } = fakeSocket();
    party.output(Buffer.from('hello '));
    party.output(Buffer.from('world'));
    expect(frames).toEqual([]);
    await tick();
    expect(frames).toEqual([{ type: T.raw, body: Buffer.from('hello world') }]);
  });

  it('cuts a flood into frames that grow to 128 KiB, in order, whatever the length varint', async () => {
    const { party, frames } = fakeSocket();
    const chunks = [100, 1000, 20_000, 40_000, 5].map((size, i) => bytesOf(size, i));
    for (const chunk of chunks) party.output(chunk);
    await tick();
    expect(frames.every((f) => f.type === T.raw && f.body.length <= maxOutputFrameBytes)).toBe(
      true,
    );
    expect(Buffer.concat(frames.map((f) => f.body))).toEqual(Buffer.concat(chunks));
    expect(frames.map((f) => f.body.length)).toEqual([16_384, 32_768, 61_105 - 49_152]);
  });

  it('sends 128 KiB frames while a flood lasts, and small ones again once it is over', async () => {
    const { party, frames } = fakeSocket();
    const flood = bytesOf(600 * 1024, 7);
    for (let at = 0; at < flood.length; at += 4096) party.output(flood.subarray(at, at + 4096));
    await tick();
    const kib = (f: { body: Buffer }) => f.body.length / 1024;
    expect(frames.map(kib)).toEqual([16, 32, 64, 128, 128, 128, 104]);
    expect(Buffer.concat(frames.map((f) => f.body))).toEqual(flood);
    frames.length = 0;
    // A quiet tick (the echo of a key), then another burst: it starts small again.
    party.output(Buffer.from('x'));
    await tick();
    party.output(bytesOf(40 * 1024, 8));
    await tick();
    expect(frames.map((f) => f.body.length)).toEqual([1, 16_384, 24_576]);
  });

  it('keeps the output before an event, an error or the end ahead of it', async () => {
    const { party, frames, socket } = fakeSocket();
    party.output(Buffer.from('before'));
    party.event({ event: 'resize', size: '80:24' });
    party.output(Buffer.from('after'));
    party.end('exited with code 0');
    party.output(Buffer.from('too late'));
    await tick();
    expect(frames.map((f) => [f.type, f.body.toString()])).toEqual([
      [T.raw, 'before'],
      [T.audit, '{"event":"resize","size":"80:24"}'],
      [T.raw, 'after'],
      [T.sessionEnd, '{"reason":"exited with code 0"}'],
    ]);
    expect(socket.closedWith).toBe(1000);
  });
});
