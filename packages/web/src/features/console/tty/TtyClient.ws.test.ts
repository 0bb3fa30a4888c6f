import { decodeEnvelope, encodeEnvelope } from '@postern/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { OutputBatcher } from './OutputBatcher';
import { createTraceparent } from './traceparent';
import { terminalUrl } from './terminalUrl';
import { TtyClient } from './TtyClient';

/**
 * The client as the benchmark's headless Node client uses it: Node's `ws` passed in, no DOM.
 * The DOM globals are removed for the test, so any use of them would fail here.
 */
afterEach(() => vi.unstubAllGlobals());

describe('TtyClient over a real socket (Node, ws)', () => {
  it('authenticates in-band, streams output, acknowledges it and closes with 1000', async () => {
    vi.stubGlobal('window', undefined);
    vi.stubGlobal('document', undefined);
    vi.stubGlobal('requestAnimationFrame', undefined);

    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const port = (server.address() as { port: number }).port;

    const seen: { first?: string; query?: string; acks: number[]; closeCode?: number } = {
      acks: [],
    };
    const serverDone = new Promise<void>((resolve) => {
      server.on('connection', (socket, request) => {
        seen.query = request.url;
        socket.once('message', (data, isBinary) => {
          seen.first = isBinary ? 'binary!' : data.toString();
          socket.send(JSON.stringify({ type: 'create_session_response', status: 'ok' }));
          const bytes = new TextEncoder().encode('héllo wörld\r\n');
          socket.send(encodeEnvelope('r', bytes.subarray(0, 2))); // splits é
          socket.send(encodeEnvelope('r', bytes.subarray(2)));
          socket.on('message', (frame) => {
            const envelope = decodeEnvelope(new Uint8Array(frame as Buffer));
            if (envelope.type === 'o') seen.acks.push(Number(envelope.payload));
          });
        });
        socket.on('close', (code) => {
          seen.closeCode = code;
          resolve();
        });
      });
    });

    const client = new TtyClient({
      url: terminalUrl(
        { protocol: 'http:', host: `127.0.0.1:${port}` },
        'root',
        { server_id: 'node-1', login: 'root', term: { w: 80, h: 24 } },
        createTraceparent(),
      ),
      token: 'secret-bearer',
      WebSocket,
    });
    let output = '';
    // A headless terminal: "processes" output at once.
    const batcher = new OutputBatcher({
      acks: client,
      sink: {
        write: (data, done) => {
          output += data;
          done();
        },
      },
    });
    client.on('output', (text, bytes) => batcher.push(text, bytes));
    client.connect();
    await vi.waitFor(() => expect(seen.acks.reduce((a, b) => a + b, 0)).toBe(15));
    expect(output).toBe('héllo wörld\r\n');
    expect(JSON.parse(seen.first ?? '')).toEqual({ token: 'secret-bearer' });
    expect(seen.query).not.toContain('secret-bearer');
    client.close();
    await serverDone;
    expect(seen.closeCode).toBe(1000);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
