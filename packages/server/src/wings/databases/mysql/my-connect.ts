import type { TLSSocket } from 'node:tls';
import type { DatabaseClientCa } from '../db-client-ca.js';
import type { DatabaseRecord } from '../db-kind.js';
import { startDatabaseTls } from '../db-tls.js';
import type { DialDatabase } from '../db-kind.js';
import { MysqlPacketReader } from './my-reader.js';
import {
  Capability,
  handshakeResponse,
  offeredCapabilities,
  packet,
  parseErr,
  parseGreeting,
  sslRequest,
  wireShapingCapabilities,
  type HandshakeResponse,
  type MysqlError,
} from './my-wire.js';

/** The database itself refused (its own error packet, passed on to the client as it is). */
export class DatabaseRefusal extends Error {
  constructor(readonly error: MysqlError) {
    super(error.message);
  }
}

export interface MysqlBackend {
  socket: TLSSocket;
  /** The server's own id for the connection (its greeting's), which `KILL` takes. */
  serverConnectionId: number;
  /** The server's OK that ended its authentication, for the client. */
  ok: Buffer;
  /** Bytes the server sent past its OK (none, from a well-behaved server). */
  rest: Buffer;
}

/** How many authentication rounds a server may ask for before the proxy gives up. */
const maxAuthRounds = 4;

/**
 * Signs in to a MySQL or MariaDB server as `client.user` with a client certificate for that
 * user: its greeting, an SSLRequest, TLS, then a handshake response with an empty password
 * (the server knows the user by `REQUIRE SUBJECT` on the certificate). The capabilities passed
 * on are the client's, as far as the server has them: the relay after this is byte for byte,
 * so both ends must agree on every flag that shapes a packet.
 */
export async function connectMysql(
  db: DatabaseRecord,
  client: HandshakeResponse,
  options: { allowLocalInfile: boolean },
  deps: { dial: DialDatabase; ca: DatabaseClientCa },
): Promise<MysqlBackend> {
  const [raw, certificate] = await Promise.all([
    deps.dial(db),
    deps.ca.clientCertificate(client.user),
  ]);
  let socket: TLSSocket | undefined;
  try {
    const plain = new MysqlPacketReader(raw);
    const greet = await plain.packet();
    if (greet.payload[0] === 0xff) throw new DatabaseRefusal(parseErr(greet.payload));
    const server = parseGreeting(greet.payload);
    if (!(server.capabilities & Capability.ssl)) {
      throw new Error(`database ${db.metadata.name} does not accept TLS (have_ssl off?)`);
    }
    for (const [name, flag] of wireShapingCapabilities) {
      if (client.capabilities & flag && !(server.capabilities & flag)) {
        throw new Error(
          `database ${db.metadata.name} does not speak ${name}, which the client uses`,
        );
      }
    }
    let capabilities =
      (client.capabilities & server.capabilities & offeredCapabilities) |
      Capability.protocol41 |
      Capability.secureConnection;
    if (!options.allowLocalInfile) capabilities &= ~Capability.localFiles;
    if (!client.database) capabilities &= ~Capability.connectWithDb;
    if (server.capabilities & Capability.pluginAuth) capabilities |= Capability.pluginAuth;
    // Nothing may follow the greeting before TLS (the lesson of CVE-2021-23214 in PostgreSQL).
    if (plain.release().length > 0) throw new Error('the database sent more than its greeting');
    raw.write(packet(1, sslRequest(capabilities, client.maxPacket, client.charset)));
    socket = await startDatabaseTls(raw, db, certificate);
    socket.write(
      packet(
        2,
        handshakeResponse({
          ...client,
          capabilities,
          authResponse: Buffer.alloc(0),
          authPlugin: server.authPlugin,
        }),
      ),
    );
    const secure = new MysqlPacketReader(socket);
    for (let round = 0; round < maxAuthRounds; round++) {
      const answer = await secure.packet();
      const kind = answer.payload[0];
      if (kind === 0x00) {
        return {
          socket,
          serverConnectionId: server.connectionId,
          ok: answer.payload,
          rest: secure.release(),
        };
      }
      if (kind === 0xff) throw new DatabaseRefusal(parseErr(answer.payload));
      // AuthSwitchRequest: the empty password, in any plugin that hashes it, is empty.
      if (kind === 0xfe) socket.write(packet(answer.seq + 1, Buffer.alloc(0)));
      // caching_sha2_password: 3 is "fast auth done" (the OK follows); 4 asks for the password
      // in the clear, which inside TLS is allowed: the empty one.
      else if (kind === 0x01 && answer.payload[1] === 0x04) {
        socket.write(packet(answer.seq + 1, Buffer.from([0])));
      } else if (!(kind === 0x01 && answer.payload[1] === 0x03)) {
        throw new Error(
          `database ${db.metadata.name} asked for an authentication Postern cannot answer`,
        );
      }
    }
    throw new Error(`database ${db.metadata.name} kept asking to authenticate`);
  } catch (error) {
    (socket ?? raw).destroy();
    throw error;
  }
}
