import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import { preferredCiphers } from '../../tls/preferred-ciphers.js';
import type { ClientCertificate } from './db-client-ca.js';
import { databaseAddress, type DatabaseRecord } from './db-kind.js';

/**
 * Starts TLS to a database over `socket` (after the protocol's own "let us talk TLS" exchange),
 * presenting the client certificate for the database user and checking the server's as the
 * resource's `tls.mode` says.
 */
export function startDatabaseTls(
  socket: Duplex,
  db: DatabaseRecord,
  client: ClientCertificate,
): Promise<TLSSocket> {
  const { host } = databaseAddress(db);
  const mode = db.spec.tls.mode;
  const options: ConnectionOptions = {
    socket: socket as Socket,
    cert: client.certPem,
    key: client.keyPem,
    ca: db.spec.ca_cert,
    host,
    servername: isIP(host) ? undefined : host,
    rejectUnauthorized: mode !== 'insecure',
    ciphers: preferredCiphers,
    ...(mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
  };
  return new Promise((resolve, reject) => {
    const tls = tlsConnect(options);
    const fail = (error: Error) =>
      reject(new Error(`TLS to database ${db.metadata.name}: ${error.message}`));
    tls.once('error', fail);
    tls.once('secureConnect', () => {
      tls.off('error', fail);
      resolve(tls);
    });
  });
}
