import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { createSelfSigned } from '../tls/self-signed.js';

// Sockets that never finish the TLS handshake, or never finish their headers, are cut at 10 s,
// and while 200 of them hang on, a real user's requests are answered as fast as without them.

let app: TestApp;
let port: number;

beforeAll(async () => {
  app = await createTestApp({ https: await createSelfSigned(['localhost']) });
  ({ port } = await app.listenOnLoopback());
}, 30_000);

afterAll(() => app?.close());

function ping(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/webapi/ping', rejectUnauthorized: false, agent: false },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`ping answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function slowestOf(count: number): Promise<number> {
  let slowest = 0;
  for (let i = 0; i < count; i += 1) slowest = Math.max(slowest, await ping());
  return slowest;
}

/** Resolves with the time from opening to the server closing the socket. */
function closedAfter(socket: Socket, openedAt: number): Promise<number> {
  // Reading is what lets the client see the server's end of the stream.
  socket.resume();
  return new Promise((resolve) => {
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(performance.now() - openedAt));
  });
}

/** A TCP connection that says nothing: it never starts the TLS handshake. */
function silentTcp(): Promise<number> {
  const socket = tcpConnect(port, '127.0.0.1');
  return closedAfter(socket, performance.now());
}

/** A finished handshake followed by headers that never end; `sent` once they are out. */
function endlessHeaders(): { sent: Promise<unknown>; closed: Promise<number> } {
  const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  const closed = closedAfter(socket, performance.now());
  const sent = new Promise((resolve) =>
    socket.once('secureConnect', () =>
      socket.write('GET /v1/webapi/ping HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', resolve),
    ),
  );
  return { sent, closed };
}

describe('slow and idle connections', () => {
  it('cuts silent and half-sent connections at 10 s, and 200 of them do not slow others', async () => {
    const baseline = await slowestOf(20);

    const silent = Array.from({ length: 100 }, () => silentTcp());
    const halfSent = Array.from({ length: 100 }, () => endlessHeaders());
    await Promise.all(halfSent.map(({ sent }) => sent));
    const underSiege = await slowestOf(20);
    // Cut neither early nor late: the 10 s limits, checked every second.
    const lifetimes = await Promise.all([...silent, ...halfSent.map(({ closed }) => closed)]);

    expect(Math.min(...lifetimes)).toBeGreaterThan(9_000);
    expect(Math.max(...lifetimes)).toBeLessThan(13_000);
    // Legitimate requests keep their pace: within a small margin of the quiet baseline.
    expect(underSiege).toBeLessThan(Math.max(baseline * 3, 100));
  }, 30_000);
});
