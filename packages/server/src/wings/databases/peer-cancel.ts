import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import { accessDenied } from '../../errors.js';
import { peerClaimBase, type PeerProofs } from '../../modules/sessions/peer-proof.js';
import { pinnedTo } from '../../modules/sessions/remote-session.js';
import type { SessionTracker } from '../../modules/sessions/session-tracker.store.js';
import type { CancelScope } from './postgres/cancel-keys.js';

/**
 * Cancels across the proxies of a cluster (docs/high-availability.md). A client stops a query on
 * a new connection: psql's CancelRequest carries the proxy's cancel key, the mariadb client's
 * `KILL QUERY <id>` the proxy's connection id. A load balancer may hand that connection to
 * another proxy than the one holding the session, which knows neither. That proxy then asks the
 * proxies holding database sessions, through this internal route: the holder forwards a
 * PostgreSQL cancel itself, and tells the asker a MySQL session's thread id at the server, so the
 * asker's `KILL` goes to the server as if it held the session.
 */
export const peerCancelPath = '/v1/proxy/db/cancel';

const cancelClaimSchema = z.discriminatedUnion('protocol', [
  peerClaimBase.extend({
    protocol: z.literal('postgres'),
    /** The proxy's key as the client had it; the secret base64 (4 bytes in protocol 3.0). */
    pid: z.number().int(),
    secret: z.string().max(344),
    /** Through the tunnel: only a session of this user on this database may be cancelled. */
    scope: z.object({ user: z.string(), db: z.string() }).optional(),
  }),
  peerClaimBase.extend({
    protocol: z.literal('mysql'),
    /** The proxy's connection id, and whose session on which database it must be. */
    thread: z.number().int(),
    user: z.string(),
    db: z.string(),
  }),
]);

/** Cancels by a key this proxy holds; says whether it did (`forwardCancel` in `pg-session.ts`). */
export type LocalCancel = (pid: number, secret: Buffer, scope?: CancelScope) => Promise<boolean>;

/** The server's id of a MySQL thread this proxy holds, if it is this user's on this database. */
export type LocalThread = (thread: number, user: string, db: string) => number | undefined;

interface Holder {
  proxyId: string;
  proxyAddr: string;
  proxyCert?: string;
}

export interface PeerCancelsDeps {
  proofs: PeerProofs;
  proxyId: string;
  /** Every live session of the cluster (the hub's watched trackers). */
  trackers: () => SessionTracker[];
  timeoutMs?: number;
}

/** The asking side: a cancel this proxy holds nothing for, asked of the other proxies. */
export class PeerCancels {
  constructor(private readonly deps: PeerCancelsDeps) {}

  /** A PostgreSQL cancel by the key: true when the proxy holding it forwarded it. */
  async forward(pid: number, secret: Buffer, scope?: CancelScope): Promise<boolean> {
    const claim = { protocol: 'postgres', pid, secret: secret.toString('base64') };
    const answer = await this.ask({ ...claim, ...(scope ? { scope } : {}) }, (body) =>
      body.cancelled === true ? true : undefined,
    );
    return answer ?? false;
  }

  /** The server's id of a MySQL session another proxy holds for this user on this database. */
  mysqlThread(thread: number, user: string, db: string): Promise<number | undefined> {
    return this.ask({ protocol: 'mysql', thread, user, db }, (body) =>
      typeof body.serverId === 'number' ? body.serverId : undefined,
    );
  }

  /**
   * Asks each other proxy that holds a database session, at once; the first answer `read` takes
   * settles it, without waiting for the others (a proxy that died lingers in the trackers for a
   * while and answers nothing). The claim goes only over TLS to the certificate the holder's
   * trackers name.
   */
  private ask<T>(
    claim: object,
    read: (body: Record<string, unknown>) => T | undefined,
  ): Promise<T | undefined> {
    const holders = this.holders();
    return new Promise((resolve) => {
      let left = holders.length;
      if (left === 0) return resolve(undefined);
      for (const holder of holders) {
        void this.deps.proofs
          .signFor('db-cancel', { ...claim, to: holder.proxyId })
          .then((headers) => postProof(holder, headers, this.deps.timeoutMs ?? 3000))
          .catch(() => ({}))
          .then((body) => {
            const answer = read(body);
            left -= 1;
            if (answer !== undefined || left === 0) resolve(answer);
          });
      }
    });
  }

  /** The other proxies holding database sessions, each once, with where they are reached. */
  private holders(): Holder[] {
    const byProxy = new Map<string, Holder>();
    for (const { kind, proxyId, proxyAddr, proxyCert } of this.deps.trackers()) {
      if (kind !== 'db' || proxyId === this.deps.proxyId || !proxyAddr) continue;
      byProxy.set(proxyId, { proxyId, proxyAddr, ...(proxyCert ? { proxyCert } : {}) });
    }
    return [...byProxy.values()];
  }
}

/** POSTs the proof to the holder's internal route; its JSON answer, or `{}`. */
function postProof(
  holder: Holder,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const url = new URL(peerCancelPath, holder.proxyAddr);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      { method: 'POST', headers, timeout: timeoutMs, ...pinnedTo(holder.proxyCert) },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve(response.statusCode === 200 ? parsed(body) : {}));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end();
  });
}

function parsed(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export interface PeerCancelRouteOptions {
  proofs: PeerProofs;
  proxyId: string;
  /** This proxy's own keys only: a cancel asked by a peer is never asked of the peers again. */
  cancel: LocalCancel;
  thread: LocalThread;
}

/**
 * The answering side: another proxy of the cluster asks about a cancel. The request must carry a
 * fresh, unused proof for this proxy under the `db-cancel` purpose. The answer says whether this
 * proxy cancelled (PostgreSQL), or the server's thread id (MySQL, null when not held here), so
 * the asker stops looking.
 */
export async function peerCancelRoute(
  app: FastifyInstance,
  options: PeerCancelRouteOptions,
): Promise<void> {
  app.post(peerCancelPath, { config: { access: 'public' } }, async (request) => {
    const verdict = await options.proofs.verifyFor(
      'db-cancel',
      cancelClaimSchema,
      request.headers,
      options.proxyId,
    );
    if (!verdict.ok) throw accessDenied(`access denied: ${verdict.reason}`);
    const { claim } = verdict;
    if (claim.protocol === 'mysql') {
      return { serverId: options.thread(claim.thread, claim.user, claim.db) ?? null };
    }
    const secret = Buffer.from(claim.secret, 'base64');
    return { cancelled: await options.cancel(claim.pid, secret, claim.scope) };
  });
}
