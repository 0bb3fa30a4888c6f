import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { DatabaseClientCa } from '../db-client-ca.js';
import type { DatabaseRecord, DialDatabase } from '../db-kind.js';
import { startDatabaseTls } from '../db-tls.js';
import { sslRequest } from './pg-wire.js';

/**
 * A TLS connection to a PostgreSQL server, signed in by certificate as `dbUser`: the SSLRequest,
 * the server's `S`, then the handshake. A server that answers `N` does not do TLS, and Postern
 * never sends a database user's traffic in the clear.
 */
export async function connectPostgres(
  db: DatabaseRecord,
  dbUser: string,
  deps: { dial: DialDatabase; ca: DatabaseClientCa },
): Promise<TLSSocket> {
  const [raw, client] = await Promise.all([deps.dial(db), deps.ca.clientCertificate(dbUser)]);
  try {
    raw.write(sslRequest());
    const answer = await firstByte(raw);
    if (answer !== 'S') {
      throw new Error(`database ${db.metadata.name} does not accept TLS (ssl = off?)`);
    }
    return await startDatabaseTls(raw, db, client);
  } catch (error) {
    raw.destroy();
    throw error;
  }
}

function firstByte(stream: Duplex): Promise<string> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      cleanup();
      stream.pause();
      // Nothing may follow the one-byte answer before the handshake (CVE-2021-23214's lesson).
      if (chunk.length !== 1) reject(new Error('the database sent more than its TLS answer'));
      else resolve(String.fromCharCode(chunk[0]!));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the database closed the connection'));
    };
    stream.on('data', onData);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
