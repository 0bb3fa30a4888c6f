import { apiPaths } from '@postern/contracts';
import { Duplex } from 'node:stream';
import type { LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import {
  LeafTunnelRefusal,
  openLeafTunnel,
} from '../../../modules/trusted-clusters/leaf-tunnel.js';
import { nativeLeafCaller, nativeLeafHop } from '../leaf-db-login.js';
import type { LeafAdmission } from '../native-listener.js';
import { CommandGate } from './my-command-gate.js';
import { MysqlPacketReader } from './my-reader.js';
import { fail, type GreetedClient } from './my-session.js';
import { Command } from './my-statements.js';
import { killText, proxyKillOf } from './my-threads.js';
import {
  Capability,
  ErrorCode,
  handshakeResponse,
  packet,
  parseGreeting,
  parseHandshakeResponse,
  type MysqlError,
} from './my-wire.js';

/** The root's side of a leaf's databases on its native MySQL listener. */
export interface LeafMysqlDeps {
  /** How this root reaches its leaves, once the trusted-clusters part is built. */
  reach: () => LeafReach | undefined;
  threads: LeafMysqlThreads;
}

/** A leaf's session as this root's client knows it: the leaf's own id for it, and whose it is. */
interface LeafThread {
  leaf: string;
  name: string;
  user: string;
  leafId: number;
}

/**
 * The connection ids this root greeted leaf sessions' clients with, and the leaf's ids for
 * them. The mariadb client's Ctrl-C sends `KILL QUERY <id>` on a second connection, which the
 * root passes to the leaf with the leaf's id, for the same user's session on the same database.
 */
export class LeafMysqlThreads {
  readonly #threads = new Map<number, LeafThread>();

  bind(id: number, thread: LeafThread): () => void {
    this.#threads.set(id, thread);
    return () => this.#threads.delete(id);
  }

  /** The leaf's id for the root's `id`, when it is `whose` session there. */
  leafIdFor(id: number, whose: Omit<LeafThread, 'leafId'>): number | undefined {
    const thread = this.#threads.get(id);
    const same = thread?.leaf === whose.leaf && thread.name === whose.name;
    return same && thread.user === whose.user ? thread.leafId : undefined;
  }
}

/** Short queries are held whole on their way to the leaf, so that a `KILL <id>` can be mapped. */
const heldQueryMaxBytes = 80;

/**
 * A `postern db login --cluster` client on this root's MySQL listener. The root greeted it and
 * took its TLS and handshake response; the route is the certificate's. The root then opens the
 * tunnel `postern proxy db --cluster` opens, as the user, to the leaf's MySQL engine, which
 * greets in turn: the root answers that greeting with the client's handshake response (no TLS:
 * the tunnel is TLS already) and hands the leaf's answer to the client in the client's sequence.
 * From then on the bytes pass, but for a `KILL` of an id this root gave, which becomes the leaf's.
 * The leaf's role map, RBAC, audit and locks decide; the root audits the hop and ends it on its
 * own locks (LeafReach.hop).
 */
export async function serveLeafMysql(
  client: Duplex,
  admission: LeafAdmission,
  greeted: Omit<GreetedClient, 'secured'>,
  remoteAddr: string,
  deps: LeafMysqlDeps,
): Promise<void> {
  const { leaf, name, pinned } = admission;
  const { reader, answer, connectionId } = greeted;
  const refuse = (error: MysqlError) => {
    reader.release();
    fail(client, answer.seq + 1, error);
  };
  const response = parseHandshakeResponse(answer.payload);
  const userOk = response.user === pinned.dbUser;
  if (!userOk || (response.database !== '' && response.database !== pinned.dbName)) {
    return refuse({
      code: userOk ? ErrorCode.dbAccessDenied : ErrorCode.accessDenied,
      sqlState: userOk ? '42000' : '28000',
      message: `this certificate is for database user "${pinned.dbUser}"${pinned.dbName ? ` and database "${pinned.dbName}"` : ''} on ${name}@${leaf}: run postern db login for another`,
    });
  }
  const reach = deps.reach();
  if (!reach?.isLeaf(leaf)) {
    return refuse({
      code: ErrorCode.badDb,
      sqlState: '42000',
      message: `no trusted cluster named ${leaf}`,
    });
  }
  let tunnel: Duplex;
  const caller = nativeLeafCaller(admission);
  try {
    tunnel = await openLeafTunnel(reach, leaf, caller, apiPaths.databaseConnectIn(leaf, name));
  } catch (error) {
    // The leaf's refusal in its words (1045, as the engine's own); an unreachable leaf, as a host.
    if (error instanceof LeafTunnelRefusal) {
      return refuse({ code: ErrorCode.accessDenied, sqlState: '28000', message: error.reason });
    }
    return refuse({
      code: ErrorCode.badHost,
      sqlState: 'HY000',
      message: `${leaf} cannot be reached`,
    });
  }
  tunnel.on('error', () => tunnel.destroy());
  const leafSide = new MysqlPacketReader(tunnel);
  let leafId: number;
  try {
    leafId = parseGreeting((await leafSide.packet()).payload).connectionId;
    const onward = { ...response, capabilities: response.capabilities & ~Capability.ssl };
    tunnel.write(packet(1, handshakeResponse(onward)));
    const leafAnswer = await leafSide.packet();
    // The leaf's answer in the client's sequence: its handshake response was one more packet.
    client.write(packet(answer.seq + 1, leafAnswer.payload));
    if (leafAnswer.payload[0] !== 0x00) {
      // The leaf refused, in its words, passed on: the client reads them before the end.
      reader.release();
      leafSide.release();
      tunnel.destroy();
      client.end();
      return;
    }
  } catch {
    leafSide.release();
    tunnel.destroy();
    return refuse({
      code: ErrorCode.badHost,
      sqlState: 'HY000',
      message: `${leaf} did not answer`,
    });
  }
  const leftover = leafSide.release();
  if (leftover.length > 0) client.write(leftover);
  const pending = reader.release();
  const forget = deps.threads.bind(connectionId, { leaf, name, user: admission.user, leafId });
  tunnel.once('close', forget);
  const upstream = killsMapped(tunnel, (id) =>
    deps.threads.leafIdFor(id, { leaf, name, user: admission.user }),
  );
  if (pending.length > 0) upstream.write(pending);
  reach.hop(client, upstream, nativeLeafHop(admission, remoteAddr));
}

/**
 * The tunnel as the hop writes to it: the client's commands go through a gate that holds short
 * queries whole and rewrites a `KILL <id>` of an id this root gave into the leaf's id; the rest,
 * and everything the leaf sends, passes as it is.
 */
function killsMapped(tunnel: Duplex, leafIdOf: (id: number) => number | undefined): Duplex {
  const gate = new CommandGate({
    holds: (command, length) => command === Command.query && length <= heldQueryMaxBytes,
    judge: (payload) => {
      const kill = proxyKillOf(payload.toString('utf8', 1));
      const leafId = kill && leafIdOf(kill.id);
      if (!kill || leafId === undefined) return payload;
      return Buffer.concat([Buffer.from([Command.query]), Buffer.from(killText(kill, leafId))]);
    },
    passed: () => undefined,
  });
  const forward: Buffer[] = [];
  const upstream = new Duplex({
    read: () => tunnel.resume(),
    write(chunk: Buffer, _encoding, done) {
      forward.length = 0;
      try {
        gate.push(chunk, forward);
      } catch (error) {
        return done(error as Error);
      }
      let flowing = true;
      for (const piece of forward) flowing = tunnel.write(piece) && flowing;
      if (flowing) done();
      else tunnel.once('drain', () => done());
    },
    final(done) {
      tunnel.end();
      done();
    },
    destroy(error, done) {
      tunnel.destroy();
      done(error);
    },
  });
  tunnel.on('data', (chunk: Buffer) => {
    if (!upstream.push(chunk)) tunnel.pause();
  });
  tunnel.once('end', () => upstream.push(null));
  tunnel.once('close', () => upstream.destroy());
  return upstream;
}
