// The bench's bare relays for PostgreSQL: the least a proxy must do to put a client on a TLS
// connection signed in by certificate. Per client: TCP to the database, SSLRequest, the server's
// 'S', the TLS handshake with the client certificate, then pipes both ways. No parsing, no audit,
// no authorization: the baseline Postern's own work is measured against.
//
// Two kinds, for the two legs a path has:
// - plain from the client (`startTlsRelay` without `fromClient`): what `postern proxy db`'s
//   loopback leg is, one TLS leg in all;
// - TLS from the client too (`fromClient: {cert, key, ca}`): the relay answers the client's
//   SSLRequest with 'S' and takes TLS with a client certificate of `ca`, as Postern's native
//   listener does, so it decrypts and encrypts every byte twice, as the listener must.
import { connect, createServer } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';

const sslRequest = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

export async function startTlsRelay({ port, ca, cert, key, fromClient }) {
  const server = createServer({ noDelay: true }, (local) => {
    local.pause();
    const fail = () => {
      local.destroy();
      raw.destroy();
    };
    const raw = connect({ host: '127.0.0.1', port, noDelay: true });
    raw.once('error', fail);
    local.once('error', fail);
    const toDatabase = new Promise((resolve) => {
      raw.once('connect', () => raw.write(sslRequest));
      raw.once('data', (answer) => {
        if (answer.length !== 1 || answer[0] !== 0x53) return fail();
        raw.pause();
        const tls = tlsConnect({ socket: raw, ca, cert, key, servername: 'localhost' });
        tls.once('error', fail);
        tls.once('secureConnect', () => resolve(tls));
      });
    });
    const fromPeer = fromClient ? acceptTls(local, fromClient, fail) : Promise.resolve(local);
    Promise.all([fromPeer, toDatabase]).then(([client, database]) => {
      client.pipe(database);
      database.pipe(client);
      client.resume();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The client's SSLRequest answered with 'S', then TLS requiring a certificate of `ca`. */
function acceptTls(local, { cert, key, ca }, fail) {
  return new Promise((resolve) => {
    local.once('data', (request) => {
      if (!request.equals(sslRequest)) return fail();
      local.pause();
      local.write('S');
      const tls = new TLSSocket(local, {
        isServer: true,
        cert,
        key,
        ca,
        requestCert: true,
        rejectUnauthorized: true,
      });
      tls.once('error', fail);
      tls.once('secure', () => {
        tls.pause();
        resolve(tls);
      });
    });
    local.resume();
  });
}
