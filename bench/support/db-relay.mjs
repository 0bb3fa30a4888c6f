// The bench's bare relay for PostgreSQL: the least a proxy must do to put a plain loopback client
// on a TLS connection signed in by certificate. Per client: TCP to the database, SSLRequest, the
// server's 'S', the TLS handshake with the client certificate, then pipes both ways. No parsing,
// no audit, no authorization: the baseline Postern's own work is measured against.
import { connect, createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const sslRequest = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export async function startTlsRelay({ port, ca, cert, key }) {
  const server = createServer((local) => {
    local.pause();
    const raw = connect({ host: '127.0.0.1', port });
    const fail = () => {
      local.destroy();
      raw.destroy();
    };
    raw.once('error', fail);
    local.once('error', fail);
    raw.once('connect', () => raw.write(sslRequest));
    raw.once('data', (answer) => {
      if (answer.length !== 1 || answer[0] !== 0x53) return fail();
      raw.pause();
      const tls = tlsConnect({ socket: raw, ca, cert, key, servername: 'localhost' });
      tls.once('error', fail);
      tls.once('secureConnect', () => {
        local.pipe(tls);
        tls.pipe(local);
        local.resume();
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
