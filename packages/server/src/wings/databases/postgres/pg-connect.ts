import type { TLSSocket } from 'node:tls';
import { firstChunk } from '../../../net/first-chunk.js';
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
    const answer = await firstChunk(raw, 'the database closed the connection');
    // Nothing may follow the one-byte answer before the handshake (CVE-2021-23214's lesson).
    if (answer.length !== 1) throw new Error('the database sent more than its TLS answer');
    if (answer[0] !== 0x53 /* S */) {
      throw new Error(`database ${db.metadata.name} does not accept TLS (ssl = off?)`);
    }
    return await startDatabaseTls(raw, db, client);
  } catch (error) {
    raw.destroy();
    throw error;
  }
}
