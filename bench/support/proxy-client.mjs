// A headless terminal client of the proxy's WebSocket (docs/protocol.md), acknowledging output
// the way the console does: frames are decoded as they arrive, "processed" in batches on the
// next macrotask (the browser's batch is an animation frame), in pieces of at most 64 KiB, and
// acknowledged once processed: as soon as 64 KiB are, and for the rest at the end of a batch.
import {
  apiPaths,
  decodeEnvelopeBytes,
  encodeEnvelope,
  terminalMessageTypes as T,
} from '@postern/contracts';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { OutputWatch } from './output.mjs';

const ackEvery = 64 * 1024;

/** The socket URL for a new session on `serverId` as `login`. */
export function terminalUrl(baseUrl, { serverId, login, term = { w: 80, h: 24 } }) {
  // The headless client dials 127.0.0.1: Node may resolve localhost to ::1 first.
  const url = new URL(apiPaths.terminalConnect('-current-'), baseUrl.replace(/^http/, 'ws'));
  url.hostname = '127.0.0.1';
  url.searchParams.set('params', JSON.stringify({ server_id: serverId, login, term }));
  url.searchParams.set('traceparent', `00-${'be'.repeat(16)}-${'ac'.repeat(8)}-01`);
  return url.toString();
}

/**
 * Opens a terminal through the proxy. Resolves once the server answered the auth frame with
 * `ok`; `openedAt` is when the socket was created (performance.now()).
 */
export function openProxyTerminal({ url, cookie, bearer }) {
  const openedAt = performance.now();
  const socket = new WebSocket(url, { headers: { cookie }, perMessageDeflate: false });
  const out = new OutputWatch();
  const decoder = new TextDecoder('utf-8');
  let pending = [];
  let scheduled = false;
  let processedSinceAck = 0;
  let ended;
  let sessionAt;

  const sendFrame = (type, payload) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(encodeEnvelope(type, payload));
  };
  const flushAck = () => {
    if (processedSinceAck === 0) return;
    sendFrame(T.outputAck, String(processedSinceAck));
    processedSinceAck = 0;
  };
  const processBatch = () => {
    scheduled = false;
    const batch = pending;
    pending = [];
    let text = '';
    let bytes = 0;
    for (const piece of batch) {
      if (bytes > 0 && bytes + piece.bytes > ackEvery) {
        out.feed(text, bytes);
        processedSinceAck += bytes;
        if (processedSinceAck >= ackEvery) flushAck();
        text = '';
        bytes = 0;
      }
      text += piece.text;
      bytes += piece.bytes;
    }
    out.feed(text, bytes);
    processedSinceAck += bytes;
    flushAck();
  };

  socket.on('message', (data, isBinary) => {
    if (!isBinary) return;
    const { type, body } = decodeEnvelopeBytes(data);
    if (type === T.raw) {
      pending.push({ text: decoder.decode(body, { stream: true }), bytes: body.length });
      if (!scheduled) {
        scheduled = true;
        setImmediate(processBatch);
      }
    } else if (type === T.sessionData) {
      // Sent once the SSH channel is open: what is left until the prompt is the node's shell.
      sessionAt ??= performance.now();
    } else if (type === T.sessionEnd) {
      ended = Buffer.from(body).toString('utf8');
    }
  });
  socket.on('error', () => {}); // 'close' follows with the code; waits fail there
  socket.on('close', (code, reason) => {
    out.close(`the terminal socket closed (${code} ${ended ?? reason.toString()})`);
  });

  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.once('open', () => socket.send(JSON.stringify({ token: bearer })));
    const onText = (data, isBinary) => {
      if (isBinary) return;
      socket.off('message', onText);
      const answer = JSON.parse(data.toString());
      if (answer.status !== 'ok') return reject(new Error(`refused: ${answer.message}`));
      resolve({
        kind: 'proxy',
        openedAt,
        /** When the first `s` frame came (the SSH channel is open), or undefined. */
        get sessionAt() {
          return sessionAt;
        },
        out,
        type: (keys) => sendFrame(T.raw, keys),
        close() {
          if (socket.readyState === WebSocket.CLOSED) return Promise.resolve();
          return new Promise((done) => {
            socket.once('close', () => done());
            socket.close(1000);
          });
        },
      });
    };
    socket.on('message', onText);
  });
}
