import { agentPaths } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { answerMessage, postJson } from '../../net/post-json.js';
import { sessionCookieName, type Identity } from '../../http/request-identity.js';
import { SessionMfa } from '../../identity/mfa/session-mfa.js';
import type { ClusterKey } from './cluster-keys.js';
import { signForwardedIdentity } from './forwarded-identity.js';
import type { LeafSessionGrant } from './leaf-sessions.js';

const grantSchema = z.object({
  session: z.string().min(1),
  bearer: z.string().min(1),
  expires: z.string(),
  bearerExpires: z.string(),
});

/** A grant is renewed when its bearer has less than this left, so no request carries a dead one. */
const renewWithinMs = 60_000;
/** Bounded: one grant per signed-in user and leaf in use; the oldest goes first. */
const maxGrants = 10_000;

/**
 * Who a grant is for: a web session's user, or the CLI's user signing with their certificate.
 * `key` tells their grants apart (the web session's id, or the certificate's); `expires` bounds
 * the leaf session.
 */
export interface LeafCaller {
  key: string;
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  /** RFC 3339. */
  expires: string;
  /** Their roles here ask for a per-session MFA check: the leaf is told (forwarded-identity.ts). */
  sessionMfa: boolean;
}

/** A web session's caller. */
export const webCaller = (identity: Identity): LeafCaller => ({
  key: `session:${identity.session.id}`,
  user: identity.user,
  roles: identity.roles,
  traits: identity.traits,
  expires: identity.session.expires,
  sessionMfa: SessionMfa.required(identity.roleSet),
});

/** The grants of a user's certificates (the CLI's, kubectl's): one per identity, not per certificate. */
export const cliCallerKey = (user: string) => `cli:${user}`;

/**
 * The CLI's caller: a user signing with a certificate of `postern login`, until it ends. Keyed by
 * the user, as kubectl's are: each new certificate (a login, a per-session MFA one every minute)
 * reuses the leaf session their identity already has, rather than asking the leaf for another.
 */
export const certCaller = (signer: {
  user: string;
  roles: string[];
  traits: Record<string, string[]>;
  roleSet: Identity['roleSet'];
  expiresMs: number;
}): LeafCaller => ({
  key: cliCallerKey(signer.user),
  user: signer.user,
  roles: signer.roles,
  traits: signer.traits,
  expires: new Date(signer.expiresMs).toISOString(),
  sessionMfa: SessionMfa.required(signer.roleSet),
});

/** What a grant was asked for with: the identity the root signs for the leaf, but its expiry. */
function identityFingerprint(caller: LeafCaller): string {
  const traits = Object.entries(caller.traits)
    .map(([name, values]) => [name, [...values].sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([[...caller.roles].sort(), traits, caller.sessionMfa]);
}

/** A leaf session's credentials as the leaf's routes read them: its cookie and its bearer. */
export const leafSessionHeaders = (grant: Pick<LeafSessionGrant, 'session' | 'bearer'>) => ({
  cookie: `${sessionCookieName}=${grant.session}`,
  authorization: `Bearer ${grant.bearer}`,
});

/** The leaf's streams: a Duplex with the socket methods Node's HTTP client calls on its socket. */
export type DialLeaf = (leaf: string) => Promise<Duplex>;

/**
 * The root's side of forwarding: for each root web session and leaf, the leaf session the leaf
 * granted (leaf-sessions.ts), asked for with the user's identity signed by the root and renewed
 * before its bearer runs out. The grant never leaves the root.
 */
export class LeafGrants {
  private readonly grants = new Map<string, { grant: LeafSessionGrant; fingerprint: string }>();
  /** Asks in flight, so a page's burst of calls makes one leaf session, not one each. */
  private readonly asking = new Map<string, Promise<LeafSessionGrant>>();

  constructor(
    private readonly options: {
      rootName: string;
      identityKey: () => Promise<ClusterKey>;
      dial: DialLeaf;
      now: Clock;
    },
  ) {}

  /**
   * The leaf session for the caller as they are now: a grant asked for while their roles, traits
   * or per-session MFA rule here were others is asked for again, so a role this root takes away
   * (or a rule that starts asking) counts on the leaf at the caller's next call, not when the
   * grant would have been renewed.
   */
  async for(caller: LeafCaller, leaf: string): Promise<LeafSessionGrant> {
    const fingerprint = identityFingerprint(caller);
    const key = `${caller.key}\n${leaf}\n${fingerprint}`;
    const held = this.grants.get(`${caller.key}\n${leaf}`);
    const fresh =
      held?.fingerprint === fingerprint &&
      Date.parse(held.grant.bearerExpires) - this.options.now() > renewWithinMs;
    if (fresh) return held.grant;
    const inFlight = this.asking.get(key);
    if (inFlight) return inFlight;
    const asked = this.ask(caller, leaf);
    this.asking.set(key, asked);
    try {
      const grant = await asked;
      this.grants.delete(`${caller.key}\n${leaf}`);
      if (this.grants.size >= maxGrants) this.grants.delete(this.grants.keys().next().value!);
      this.grants.set(`${caller.key}\n${leaf}`, { grant, fingerprint });
      return grant;
    } finally {
      this.asking.delete(key);
    }
  }

  /** Forgets a grant the leaf no longer accepts (it restarted, or ended the session). */
  drop(caller: LeafCaller, leaf: string): void {
    this.grants.delete(`${caller.key}\n${leaf}`);
  }

  private async ask(caller: LeafCaller, leaf: string): Promise<LeafSessionGrant> {
    const { rootName, now } = this.options;
    const token = await signForwardedIdentity(
      {
        user: caller.user,
        roles: caller.roles,
        traits: caller.traits,
        expires: new Date(Math.min(Date.parse(caller.expires), now() + 12 * 3600_000)),
        sessionMfa: caller.sessionMfa,
      },
      { key: (await this.options.identityKey()).privateKey, root: rootName, leaf },
    );
    const stream = await this.options.dial(leaf);
    const url = new URL(agentPaths.leafSession, 'http://leaf');
    const answer = await postJson(
      url,
      { root: rootName, identity: token },
      { over: stream, insecure: false, timeoutMs: 15_000, maxBytes: 64 * 1024, insecureHint: '' },
    ).catch((error: unknown) => {
      throw new ApiError('connection_problem', `cannot reach the leaf: ${String(error)}`);
    });
    if (answer.status !== 200) {
      const code = answer.status === 403 ? 'access_denied' : 'connection_problem';
      throw new ApiError(code, `${leaf}: ${answerMessage(answer)}`);
    }
    return grantSchema.parse(answer.json);
  }
}
