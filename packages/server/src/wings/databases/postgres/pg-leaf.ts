import { apiPaths } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import type { LeafCaller } from '../../../modules/trusted-clusters/leaf-grants.js';
import type { LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import {
  LeafTunnelRefusal,
  openLeafTunnel,
} from '../../../modules/trusted-clusters/leaf-tunnel.js';
import { nativeLeafCaller, nativeLeafHop } from '../leaf-db-login.js';
import type { LeafAdmission } from '../native-listener.js';
import { PacketReader } from './pg-reader.js';
import {
  cancelRequest,
  errorResponse,
  parseStartupPacket,
  startupMessage,
  WireError,
} from './pg-wire.js';

/** The root's side of a leaf's databases on its native PostgreSQL listener. */
export interface LeafPostgresDeps {
  /** How this root reaches its leaves, once the trusted-clusters part is built. */
  reach: () => LeafReach | undefined;
  cancels: LeafCancelKeys;
}

interface LeafCancelTarget {
  leaf: string;
  name: string;
  caller: LeafCaller;
}

/**
 * The keys the leaves' engines gave this root's clients (their `BackendKeyData`, read on the way
 * through): libpq sends a cancel to the listener it connected to, in clear text and with nothing
 * but the key, so the root must know which leaf, database and user a key belongs to.
 */
export class LeafCancelKeys {
  readonly #targets = new Map<string, LeafCancelTarget>();

  add(pid: number, secret: Buffer, target: LeafCancelTarget): () => void {
    const key = `${pid}:${secret.toString('hex')}`;
    this.#targets.set(key, target);
    return () => this.#targets.delete(key);
  }

  find(pid: number, secret: Buffer): LeafCancelTarget | undefined {
    return this.#targets.get(`${pid}:${secret.toString('hex')}`);
  }
}

/**
 * A `postern db login --cluster` client on this root's listener: its TLS and certificate were
 * checked here, its startup must ask for the certificate's route, and then it goes through the
 * same tunnel `postern proxy db --cluster` opens, as the user, to the leaf's PostgreSQL engine,
 * where the leaf's role map, RBAC, audit and locks decide. The root audits the hop and ends it on
 * its own locks (LeafReach.hop), and keeps the session's cancel key for libpq's cancel requests.
 */
export async function serveLeafPostgres(
  client: Duplex,
  admission: LeafAdmission,
  remoteAddr: string,
  deps: LeafPostgresDeps,
): Promise<void> {
  const { leaf, name, pinned } = admission;
  const reader = new PacketReader(client);
  let params: Map<string, string>;
  try {
    const startup = parseStartupPacket(await reader.startupPacket());
    if (startup.type !== 'startup') throw new WireError('expected the startup message');
    params = startup.params;
  } catch (error) {
    reader.release();
    if (error instanceof WireError)
      return fatal(client, '08P01', `protocol violation: ${error.message}`);
    throw error;
  }
  const dbUser = params.get('user') ?? '';
  const dbName = params.get('database') || dbUser;
  if (dbUser !== pinned.dbUser || dbName !== pinned.dbName) {
    reader.release();
    return fatal(
      client,
      '28000',
      `this certificate is for database user "${pinned.dbUser}" and database "${pinned.dbName}" on ${name}@${leaf}: run postern db login for another`,
    );
  }
  const reach = deps.reach();
  if (!reach?.isLeaf(leaf)) {
    reader.release();
    return fatal(client, '3D000', `no trusted cluster named ${leaf}`);
  }
  const caller = nativeLeafCaller(admission);
  let tunnel: Duplex;
  try {
    tunnel = await openLeafTunnel(reach, leaf, caller, apiPaths.databaseConnectIn(leaf, name));
  } catch (error) {
    reader.release();
    // The leaf's refusal in its words (28000, as the engine's own); an unreachable leaf is 08001.
    if (error instanceof LeafTunnelRefusal) return fatal(client, '28000', error.reason);
    return fatal(client, '08001', `${leaf} cannot be reached`);
  }
  tunnel.on('error', () => tunnel.destroy());
  tunnel.write(startupMessage(params));
  const rest = reader.release();
  if (rest.length > 0) tunnel.write(rest);
  reach.hop(client, tunnel, nativeLeafHop(admission, remoteAddr));
  // In the same turn as the hop's pipes: no answer of the leaf's can pass before both listen.
  const forget = watchBackendKey(tunnel, (pid, secret) =>
    deps.cancels.add(pid, secret, { leaf, name, caller }),
  );
  tunnel.once('close', forget);
}

/** A cancel request for a leaf's session: sent to the leaf's engine through a tunnel of its own. */
export async function forwardLeafCancel(
  pid: number,
  secret: Buffer,
  deps: LeafPostgresDeps,
): Promise<boolean> {
  const target = deps.cancels.find(pid, secret);
  const reach = deps.reach();
  if (!target || !reach) return false;
  try {
    const { leaf, name, caller } = target;
    const tunnel = await openLeafTunnel(
      reach,
      leaf,
      caller,
      apiPaths.databaseConnectIn(leaf, name),
    );
    tunnel.on('error', () => tunnel.destroy());
    tunnel.end(cancelRequest(pid, secret));
  } catch {
    // As PostgreSQL does, a cancel that cannot be delivered is dropped without an answer.
  }
  return true;
}

/**
 * Reads the server's messages on their way to the client until its `BackendKeyData` (or
 * `ReadyForQuery`, or an error), and hands the key over; returns what forgets it again.
 */
function watchBackendKey(
  server: Duplex,
  found: (pid: number, secret: Buffer) => () => void,
): () => void {
  let buffered = Buffer.alloc(0);
  let forget = () => {};
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 5) {
      const type = String.fromCharCode(buffered[0]!);
      const length = buffered.readInt32BE(1);
      if (buffered.length < 1 + length) return;
      const body = buffered.subarray(5, 1 + length);
      buffered = buffered.subarray(1 + length);
      if (type === 'K' && body.length >= 8) {
        forget = found(body.readInt32BE(0), Buffer.from(body.subarray(4)));
      }
      if (type === 'K' || type === 'Z' || type === 'E') return server.off('data', onData);
    }
  };
  server.on('data', onData);
  return () => {
    server.off('data', onData);
    forget();
  };
}

function fatal(stream: Duplex, code: string, message: string): void {
  if (stream.writable) stream.end(errorResponse({ severity: 'FATAL', code, message }));
  setTimeout(() => stream.destroy(), 2_000).unref();
}
