import https from 'node:https';
import net from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSigned } from '../../../tls/self-signed.js';
import { ProxyFixture, send, targetFor } from './proxy-fixture.testkit.js';

const fixture = new ProxyFixture();
afterEach(() => fixture.closeAll());

let certificate: { cert: string; key: string };
beforeAll(async () => {
  certificate = await createSelfSigned(['grafana.internal']);
});

/** An https app with a certificate nobody signed, answering with the name it was reached by. */
async function httpsUpstream(): Promise<{ port: number; handshakes: () => number }> {
  const server = https.createServer(certificate, (req, res) => res.end(`secure ${req.url}`));
  let handshakes = 0;
  server.on('secureConnection', () => handshakes++);
  const port = await fixture.listen(server);
  return { port, handshakes: () => handshakes };
}

describe('an https upstream', () => {
  it('is reached with insecureSkipVerify, over pooled connections', async () => {
    const upstream = await httpsUpstream();
    const { port } = await fixture.proxyServer(() =>
      targetFor(`https://127.0.0.1:${upstream.port}/base`, { insecureSkipVerify: true }),
    );
    for (let i = 0; i < 5; i++)
      expect((await send(port, `/x${i}`)).body).toBe(`secure /base/x${i}`);
    expect(upstream.handshakes()).toBeLessThanOrEqual(2);
  });

  it('answers 502 when its certificate does not verify', async () => {
    const upstream = await httpsUpstream();
    const { port } = await fixture.proxyServer(() =>
      targetFor(`https://127.0.0.1:${upstream.port}`, { insecureSkipVerify: false }),
    );
    const answer = await send(port, '/');
    expect(answer.status).toBe(502);
    expect(answer.body).not.toMatch(/certificate|self.signed/i);
  });

  it('keeps verified and unverified connections to one origin apart', async () => {
    const upstream = await httpsUpstream();
    let skip = true;
    const { port } = await fixture.proxyServer(() =>
      targetFor(`https://127.0.0.1:${upstream.port}`, { insecureSkipVerify: skip }),
    );
    expect((await send(port, '/')).status).toBe(200);
    // A warm unverified connection must not carry a request that asks for verification.
    skip = false;
    expect((await send(port, '/')).status).toBe(502);
  });

  it('runs TLS over the stream connect returns, checking the name the URL gives', async () => {
    const upstream = await httpsUpstream();
    const connect = () => net.connect(upstream.port, '127.0.0.1');
    const verified = await fixture.proxyServer(() =>
      targetFor('https://grafana.internal/base', { insecureSkipVerify: false, connect }),
    );
    // Untrusted issuer: refused, though the name matches.
    expect((await send(verified.port, '/')).status).toBe(502);
    const skipping = await fixture.proxyServer(() =>
      targetFor('https://grafana.internal/base', { insecureSkipVerify: true, connect }),
    );
    expect((await send(skipping.port, '/a')).body).toBe('secure /base/a');
  });
});
