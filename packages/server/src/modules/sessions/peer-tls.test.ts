import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createSelfSigned } from '../../tls/self-signed.js';
import { pinnedTo } from './remote-session.js';

// A proxy joining a session held by another reaches it by its internal address, which the
// holder's certificate does not name: it trusts exactly the certificate the tracker names, so
// its proof never goes to anyone else (a real TLS listener on loopback).
let holderCert: { cert: string; key: string };
let otherCert: { cert: string; key: string };
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  holderCert = await createSelfSigned(['proxy-b.public.test']);
  otherCert = await createSelfSigned(['proxy-b.public.test']);
  const server = createServer({ cert: holderCert.cert, key: holderCert.key });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket) => socket.close(1000, 'hello'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `wss://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  close = () =>
    new Promise((resolve) => {
      wss.close();
      server.closeAllConnections();
      server.close(() => resolve());
    });
});
afterAll(() => close());

const attempt = (options: object) =>
  new Promise<'open' | string>((resolve) => {
    const socket = new WebSocket(url, options);
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('error', (error) => resolve(error.message));
  });

describe('the proxy-to-proxy TLS pin', () => {
  it("connects to the holder presenting the tracker's certificate, under another name", async () => {
    expect(await attempt(pinnedTo(String(holderCert.cert)))).toBe('open');
  });

  it('refuses a listener presenting any other certificate', async () => {
    expect(await attempt(pinnedTo(String(otherCert.cert)))).not.toBe('open');
  });

  it('refuses it with the default checks too (no pin, no trust)', async () => {
    expect(await attempt({})).not.toBe('open');
  });
});
