import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../backend/index.js';
import { DatabaseClientCa, type ClientCertificate } from '../wings/databases/db-client-ca.js';
import { requireSubjectFor } from '../wings/databases/mysql/require-subject.js';
import { startPrivateMariadb, type PrivateMariadb } from './private-mariadb.testkit.js';

// The kit is real MariaDB, and sign-in works the way the proxy will use it: a client certificate
// from the database client CA whose CN is the database user, no password, over TLS.

const backends: MemoryBackend[] = [];
let ca: DatabaseClientCa;
let mariadb: PrivateMariadb;

/** A CA as the proxy has one; a MemoryBackend stands in for the cluster storage. */
async function newCa(clusterName: string): Promise<DatabaseClientCa> {
  const backend = new MemoryBackend();
  backends.push(backend);
  return DatabaseClientCa.load(backend, clusterName);
}

beforeAll(async () => {
  ca = await newCa('test');
  mariadb = await startPrivateMariadb({ clientCaPem: ca.certPem });
  await mariadb.sql(`
    create database test;
    create user 'alice'@'%' ${requireSubjectFor('alice')};
    grant all on test.* to 'alice'@'%';
    create user 'zoë/x+y'@'%' ${requireSubjectFor('zoë/x+y')};
    grant all on test.* to 'zoë/x+y'@'%';`);
}, 60_000);

afterAll(async () => {
  await mariadb?.destroy();
  await Promise.all(backends.map((backend) => backend.close()));
});

/** Signs in over TLS to 127.0.0.1 as `user`, with no password, presenting `client` if given. */
function connect(user: string, client?: ClientCertificate) {
  return mysql.createConnection({
    host: '127.0.0.1',
    port: mariadb.port,
    user,
    database: 'test',
    connectTimeout: 10_000,
    // A new ssl object each time: mysql2 keeps TLS sessions per ssl object, and a resumed
    // session would carry the previous connection's client certificate.
    ssl: {
      ca: mariadb.serverCertPem,
      ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
    },
  });
}

async function currentUser(user: string, client?: ClientCertificate): Promise<unknown> {
  const connection = await connect(user, client);
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>('select current_user() as who');
    return rows[0]?.who;
  } finally {
    await connection.end();
  }
}

describe('private MariaDB', () => {
  it('is MariaDB 10.11 of its own, on its port, with TLS on, and runs SQL as root', async () => {
    const out = await mariadb.sql(
      "select version(), @@port, @@have_ssl, @@bind_address, @@datadir like '%postern-mariadb-%'",
    );
    const [version, port, haveSsl, bind, ownDir] = out.trim().split('\t');
    expect(version).toMatch(/^10\.11\./);
    expect(Number(port)).toBe(mariadb.port);
    expect(haveSsl).toBe('YES');
    expect(bind).toBe('127.0.0.1');
    expect(ownDir).toBe('1');
    expect(await mariadb.sql('select database()', 'test')).toBe('test\n');
    await expect(mariadb.sql('select nonsense')).rejects.toThrow(/Unknown column/);
  });

  it('prints the REQUIRE SUBJECT line MariaDB compares a CN-only subject against', () => {
    expect(requireSubjectFor('alice')).toBe("REQUIRE SUBJECT '/CN=alice'");
    // OpenSSL's one-line form escapes / and + and non-ASCII bytes; the SQL literal doubles `\`.
    expect(requireSubjectFor('zoë/x+y')).toBe("REQUIRE SUBJECT '/CN=zo\\\\xC3\\\\xAB\\\\/x\\\\+y'");
    expect(requireSubjectFor("o'neil")).toBe("REQUIRE SUBJECT '/CN=o''neil'");
  });

  it('signs alice in by her client certificate alone, over TLS', async () => {
    const client = await ca.clientCertificate('alice');
    expect(await currentUser('alice', client)).toBe('alice@%');
    const connection = await connect('alice', client);
    try {
      const [rows] = await connection.query<mysql.RowDataPacket[]>(
        "show session status like 'Ssl_version'",
      );
      expect(rows[0]?.Value).toMatch(/^TLSv1\.[23]$/);
    } finally {
      await connection.end();
    }
  });

  it('signs in a user whose name needs escaping in the subject', async () => {
    expect(await currentUser('zoë/x+y', await ca.clientCertificate('zoë/x+y'))).toBe('zoë/x+y@%');
  });

  it('refuses alice without a client certificate', async () => {
    await expect(currentUser('alice')).rejects.toMatchObject({
      code: 'ER_ACCESS_DENIED_ERROR',
      errno: 1045,
    });
  });

  it("refuses bob's certificate for alice", async () => {
    await expect(currentUser('alice', await ca.clientCertificate('bob'))).rejects.toMatchObject({
      code: 'ER_ACCESS_DENIED_ERROR',
      errno: 1045,
    });
  });

  it('refuses a certificate for alice from a CA it does not trust', async () => {
    const other = await newCa('other');
    // Refused in the TLS handshake already, before MariaDB looks at the subject.
    await expect(
      currentUser('alice', await other.clientCertificate('alice')),
    ).rejects.toMatchObject({ code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA' });
  });

  it('has no password-less root over TCP', async () => {
    // Which refusal depends on the accounts there are (1045, 1698 or 1130); any will do.
    await expect(currentUser('root')).rejects.toThrow(/Access denied|is not allowed to connect/);
  });
});
