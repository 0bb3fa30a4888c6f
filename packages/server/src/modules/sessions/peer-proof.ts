import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';
import { participantModes } from '@postern/contracts';
import { z } from 'zod';
import type { Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { clusterSecret } from '../../cluster-secrets.js';
import { formatHostPort } from '../../config/address.js';

/** The internal route a proxy joins a session held by another proxy through (a WebSocket). */
export const peerJoinPath = (sid: string) => `/v1/proxy/sessions/${encodeURIComponent(sid)}/join`;
export const peerJoinPattern = '/v1/proxy/sessions/:sid/join';
export const peerClaimHeader = 'x-postern-peer-claim';
export const peerSignatureHeader = 'x-postern-peer-signature';
/** How long a proof is good for (either way, for clocks that disagree a little). */
export const peerProofValidityMs = 30_000;

/** What every proof claims: which proxy it is for, when it was made, and a nonce used once. */
export const peerClaimBase = z.object({
  /** The proxy that is to act: a proof for one proxy is refused by every other. */
  to: z.string().min(1),
  /** Milliseconds since the epoch when the proof was made. */
  ts: z.number().int(),
  nonce: z.string().min(16),
});
type PeerClaimBase = z.infer<typeof peerClaimBase>;

/** Who joins which session how, as the proxy serving the joiner judged them. */
const joinClaimSchema = peerClaimBase.extend({
  sid: z.string().min(1),
  user: z.string().min(1),
  roles: z.array(z.string()),
  mode: z.enum(participantModes),
  /** The MFA devices the joiner's credential stands on: the holder's locks on them end the party. */
  mfaDevice: z.string().optional(),
  sessionMfaDevice: z.string().optional(),
  /** The access requests the joiner's credential assumed: the same for locks on them. */
  accessRequests: z.array(z.string()).optional(),
  /** The bot instance the joiner's certificate was issued to: the same. */
  botInstance: z.string().optional(),
});
export type PeerClaim = z.infer<typeof joinClaimSchema>;

/**
 * What a proof is for: each purpose MACs under its own prefix, so a proof made for one (a join)
 * never passes as another (a database cancel).
 */
export type PeerPurpose = 'join' | 'db-cancel' | 'resume';

/** The headers proving `claim`: the claim (base64url JSON) and its HMAC-SHA256 under `secret`. */
export function peerProofHeaders(
  secret: Buffer,
  claim: PeerClaimBase,
  purpose: PeerPurpose = 'join',
): Record<string, string> {
  const encoded = Buffer.from(JSON.stringify(claim), 'utf8').toString('base64url');
  return { [peerClaimHeader]: encoded, [peerSignatureHeader]: mac(secret, purpose, encoded) };
}

const mac = (secret: Buffer, purpose: PeerPurpose, encoded: string) =>
  createHmac('sha256', secret).update(`postern-peer-${purpose}\n${encoded}`).digest('base64url');

type Verdict<T> = { ok: true; claim: T } | { ok: false; reason: string };

/**
 * Proofs between the proxies of one cluster (those on one backend): an HMAC under the cluster
 * secret `proxy-peer` over a claim (who joins which session in which mode; which database query
 * to cancel), made for one proxy, good for a short while and once (its nonce is kept until it
 * would have expired anyway).
 */
export class PeerProofs {
  private secretPromise: Promise<Buffer> | undefined;
  private readonly seen = new Map<string, number>();

  constructor(private readonly deps: { backend: Backend; now: Clock }) {}

  private secret(): Promise<Buffer> {
    this.secretPromise ??= clusterSecret(this.deps.backend, 'proxy-peer').catch((error) => {
      this.secretPromise = undefined;
      throw error;
    });
    return this.secretPromise;
  }

  sign(claim: Omit<PeerClaim, 'ts' | 'nonce'>): Promise<Record<string, string>> {
    return this.signFor('join', claim);
  }

  /** The claim the headers prove for this proxy (`self`), or why they prove nothing. */
  verify(
    headers: Record<string, string | string[] | undefined>,
    self: string,
  ): Promise<Verdict<PeerClaim>> {
    return this.verifyFor('join', joinClaimSchema, headers, self);
  }

  async signFor<T extends { to: string }>(
    purpose: PeerPurpose,
    claim: T,
  ): Promise<Record<string, string>> {
    const full = { ...claim, ts: this.deps.now(), nonce: randomBytes(16).toString('base64url') };
    return peerProofHeaders(await this.secret(), full, purpose);
  }

  async verifyFor<T extends PeerClaimBase>(
    purpose: PeerPurpose,
    schema: z.ZodType<T>,
    headers: Record<string, string | string[] | undefined>,
    self: string,
  ): Promise<Verdict<T>> {
    const encoded = headers[peerClaimHeader];
    const signature = headers[peerSignatureHeader];
    if (typeof encoded !== 'string' || typeof signature !== 'string') {
      return { ok: false, reason: 'no proof' };
    }
    const expected = Buffer.from(mac(await this.secret(), purpose, encoded));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return { ok: false, reason: 'bad proof' };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    const claim = schema.safeParse(parsed);
    if (!claim.success) return { ok: false, reason: 'bad claim' };
    if (claim.data.to !== self) return { ok: false, reason: 'proof for another proxy' };
    const now = this.deps.now();
    if (Math.abs(now - claim.data.ts) > peerProofValidityMs) {
      return { ok: false, reason: 'proof expired' };
    }
    for (const [nonce, until] of this.seen) if (until < now) this.seen.delete(nonce);
    if (this.seen.has(claim.data.nonce)) return { ok: false, reason: 'proof already used' };
    this.seen.set(claim.data.nonce, claim.data.ts + peerProofValidityMs);
    return { ok: true, claim: claim.data };
  }
}

/**
 * The URL the other proxies reach this one's web listener at, as bound. A wildcard host
 * (0.0.0.0, ::) is no address to dial: the host's first external interface address stands in.
 */
export function internalWebUrl(host: string, port: number, tls: boolean): string {
  const wildcard = host === '' || host === '0.0.0.0' || host === '::';
  const dialled = wildcard ? externalAddress() : host;
  return `${tls ? 'https' : 'http'}://${formatHostPort({ host: dialled, port })}`;
}

function externalAddress(): string {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const external = addresses.filter((a) => !a.internal);
  return (external.find((a) => a.family === 'IPv4') ?? external[0])?.address ?? hostname();
}
