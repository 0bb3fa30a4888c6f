import type { FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { z } from 'zod';
import { accessDenied } from '../../../errors.js';
import { peerClaimBase, type PeerProofs } from '../../../modules/sessions/peer-proof.js';
import { pinnedTo } from '../../../modules/sessions/remote-session.js';
import type { SessionTracker } from '../../../modules/sessions/session-tracker.store.js';
import type { CancelScope } from './cancel-keys.js';

/**
 * PostgreSQL cancels across the proxies of a cluster (docs/high-availability.md). psql sends its
 * CancelRequest on a new connection, which a load balancer may hand to another proxy than the
 * one holding the session; that proxy has no such key. It then asks the proxies that hold
 * database sessions, through this internal route, to cancel by the key; the holder forwards it
 * to the database as for a cancel of its own.
 */
export const peerCancelPath = '/v1/proxy/db/cancel';

/** Which query to cancel: the proxy's key as the client had it, and for whom when it is known. */
const cancelClaimSchema = peerClaimBase.extend({
  pid: z.number().int(),
  /** The key's secret, base64 (4 bytes in protocol 3.0; up to 256 in 3.2). */
  secret: z.string().max(344),
  /** Through the tunnel: only a session of this user on this database may be cancelled. */
  scope: z.object({ user: z.string(), db: z.string() }).optional(),
});

/** Cancels by a key this proxy holds; says whether it did (`forwardCancel` in `pg-session.ts`). */
export type LocalCancel = (pid: number, secret: Buffer, scope?: CancelScope) => Promise<boolean>;

export interface PeerCancelsDeps {
  proofs: PeerProofs;
  proxyId: string;
  /** Every live session of the cluster (the hub's watched trackers). */
  trackers: () => SessionTracker[];
  timeoutMs?: number;
}

/** The sending side: a cancel this proxy holds no key for, asked of the other proxies. */
export class PeerCancels {
  constructor(private readonly deps: PeerCancelsDeps) {}

  /**
   * Asks each other proxy that holds a database session to cancel by the key; true when one did.
   * A key is never sent to a proxy but over TLS to the certificate its trackers name.
   */
  async forward(pid: number, secret: Buffer, scope?: CancelScope): Promise<boolean> {
    const answers = await Promise.all(
      this.holders().map(async (holder) => {
        const headers = await this.deps.proofs.signFor('db-cancel', {
          to: holder.proxyId,
          pid,
          secret: secret.toString('base64'),
          ...(scope ? { scope } : {}),
        });
        return postProof(holder, headers, this.deps.timeoutMs ?? 3000).catch(() => false);
      }),
    );
    return answers.includes(true);
  }

  /** The other proxies holding database sessions, each once, with where they are reached. */
  private holders(): { proxyId: string; proxyAddr: string; proxyCert?: string }[] {
    const byProxy = new Map<string, { proxyId: string; proxyAddr: string; proxyCert?: string }>();
    for (const { kind, proxyId, proxyAddr, proxyCert } of this.deps.trackers()) {
      if (kind !== 'db' || proxyId === this.deps.proxyId || !proxyAddr) continue;
      byProxy.set(proxyId, { proxyId, proxyAddr, ...(proxyCert ? { proxyCert } : {}) });
    }
    return [...byProxy.values()];
  }
}

/** POSTs the proof to the holder's internal route; true when it answers that it cancelled. */
function postProof(
  holder: { proxyAddr: string; proxyCert?: string },
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<boolean> {
  const url = new URL(peerCancelPath, holder.proxyAddr);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      { method: 'POST', headers, timeout: timeoutMs, ...pinnedTo(holder.proxyCert) },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () => resolve(response.statusCode === 200 && isCancelled(body)));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end();
  });
}

function isCancelled(body: string): boolean {
  try {
    return (JSON.parse(body) as { cancelled?: unknown }).cancelled === true;
  } catch {
    return false;
  }
}

export interface PeerCancelRouteOptions {
  proofs: PeerProofs;
  proxyId: string;
  /** This proxy's own keys only: a cancel asked by a peer is never asked of the peers again. */
  cancel: LocalCancel;
}

/**
 * The receiving side: another proxy of the cluster asks for a cancel by a key. The request must
 * carry a fresh, unused proof for this proxy under the `db-cancel` purpose; the answer says
 * whether this proxy held the key (and the scope allowed it), so the sender stops looking.
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
    const { pid, secret, scope } = verdict.claim;
    const cancelled = await options.cancel(pid, Buffer.from(secret, 'base64'), scope);
    return { cancelled };
  });
}
