import { decodeEnvelope, encodeEnvelope } from '@postern/contracts';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { OutputBatcher } from './OutputBatcher';
import { TtyClient, type WebSocketLike } from './TtyClient';
import { handleWorkerSocketCommands, WorkerSocket, type PortLike } from './workerSocketProtocol';

/** The worker's and the page's halves joined by a real message channel, as in the browser. */
function joined(openSocket: (url: string) => WebSocketLike) {
  const channel = new MessageChannel();
  handleWorkerSocketCommands(channel.port2 as unknown as PortLike, openSocket);
  const released = vi.fn();
  const socket = new WorkerSocket('ws://test/', channel.port1 as unknown as PortLike, released);
  cleanups.push(() => {
    channel.port1.close();
    channel.port2.close();
  });
  return { socket, released };
}

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

/** A socket the test drives by hand, standing in for the worker's WebSocket. */
class HandSocket implements WebSocketLike {
  binaryType = 'blob';
  readyState = 0;
  sent: unknown[] = [];
  closedWith: [number?, string?] | undefined;
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;
  send(data: unknown) {
    this.sent.push(data);
  }
  close(code?: number, reason?: string) {
    this.closedWith = [code, reason];
  }
}

describe('WorkerSocket', () => {
  it('relays open, text, binary (handed over, not copied), sends and the close, in order', async () => {
    const hand = new HandSocket();
    const { socket, released } = joined(() => hand);
    const seen: unknown[] = [];
    socket.onopen = () => seen.push('open');
    socket.onmessage = ({ data }) =>
      seen.push(typeof data === 'string' ? data : [...new Uint8Array(data as ArrayBuffer)]);
    socket.onclose = ({ code, reason }) => seen.push(`close ${code} ${reason}`);
    socket.send('too early'); // not open yet: dropped, as a WebSocket would refuse it
    await vi.waitFor(() => expect(hand.binaryType).toBe('arraybuffer'));

    hand.onopen?.({});
    const binary = new Uint8Array([1, 2, 3]).buffer;
    hand.onmessage?.({ data: 'text' });
    hand.onmessage?.({ data: binary });
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen).toEqual(['open', 'text', [1, 2, 3]]);
    expect(binary.byteLength).toBe(0); // transferred to the page

    expect(socket.readyState).toBe(1);
    socket.send('keys');
    socket.send(new Uint8Array([9, 8]));
    await vi.waitFor(() => expect(hand.sent).toHaveLength(2));
    expect(hand.sent[0]).toBe('keys');
    expect([...(hand.sent[1] as Uint8Array)]).toEqual([9, 8]);

    socket.close(1000, 'closed');
    expect(socket.readyState).toBe(2);
    await vi.waitFor(() => expect(hand.closedWith).toEqual([1000, 'closed']));
    hand.onclose?.({ code: 1000, reason: 'closed' });
    await vi.waitFor(() => expect(socket.readyState).toBe(3));
    expect(seen.at(-1)).toBe('close 1000 closed');
    expect(released).toHaveBeenCalledOnce();
  });

  it('a failed worker closes the socket once, as a lost connection', () => {
    const { socket, released } = joined(() => new HandSocket());
    const closes: [number, string][] = [];
    socket.onclose = ({ code, reason }) => closes.push([code, reason]);
    socket.fail('its worker failed');
    socket.fail('again');
    expect(closes).toEqual([[1006, 'its worker failed']]);
    expect(released).toHaveBeenCalledOnce();
  });

  it('carries the terminal protocol for TtyClient against a real server (ws)', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as { port: number };
    const acks: number[] = [];
    let closeCode: number | undefined;
    server.on('connection', (peer) => {
      peer.once('message', () => {
        peer.send(JSON.stringify({ type: 'create_session_response', status: 'ok' }));
        const bytes = new TextEncoder().encode('héllo wörld\r\n');
        peer.send(encodeEnvelope('r', bytes.subarray(0, 2))); // splits é
        peer.send(encodeEnvelope('r', bytes.subarray(2)));
        peer.on('message', (frame) => {
          const envelope = decodeEnvelope(new Uint8Array(frame as Buffer));
          if (envelope.type === 'o') acks.push(Number(envelope.payload));
        });
      });
      peer.on('close', (code) => (closeCode = code));
    });
    const client = new TtyClient({
      url: `ws://127.0.0.1:${port}/v1/webapi/sites/-current-/connect/ws`,
      token: 'bearer',
      createSocket: (url) => {
        const channel = new MessageChannel();
        handleWorkerSocketCommands(
          channel.port2 as unknown as PortLike,
          (u) => new WebSocket(u) as unknown as WebSocketLike,
        );
        cleanups.push(() => {
          channel.port1.close();
          channel.port2.close();
        });
        return new WorkerSocket(url, channel.port1 as unknown as PortLike);
      },
    });
    let output = '';
    const batcher = new OutputBatcher({
      acks: client,
      sink: { write: (data, done) => void ((output += data), done()) },
    });
    client.on('output', (text, bytes) => batcher.push(text, bytes));
    client.connect();
    await vi.waitFor(() => expect(acks.reduce((a, b) => a + b, 0)).toBe(15));
    expect(output).toBe('héllo wörld\r\n');
    client.close();
    await vi.waitFor(() => expect(closeCode).toBe(1000));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
