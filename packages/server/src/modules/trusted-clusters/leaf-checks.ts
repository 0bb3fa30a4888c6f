import { randomBytes } from 'node:crypto';
import type { MfaChallenge, SessionMfaResponse } from '@postern/contracts';
import type { Clock } from '../../clock.js';
import { accessDenied } from '../../errors.js';
import { sessionMfaTimeoutMs, type RootUserChecks } from '../../identity/mfa/session-mfa.js';
import type { UsersStore } from '../../identity/users/users.store.js';
import { verifyRootAssertion } from './forwarded-identity.js';
import type { TrustedClustersStore } from './trusted-clusters.store.js';

/** Challenges waiting for their answer: one a socket, so few; bounded all the same. */
const maxPending = 10_000;

/**
 * The leaf's half of per-session MFA for a trusted root's users in the console
 * (docs/trusted-clusters.md): they have no device here, so a terminal's challenge for them is a
 * nonce (`root_check`). The root, which relays the socket, asks its user with its own devices
 * and answers with an assertion it signs for that nonce (`root_assertion`), which this side
 * checks against the root's key and takes once.
 */
export class LeafChecks implements RootUserChecks {
  private readonly pending = new Map<string, { nonce: string; root: string; expires: number }>();

  constructor(
    private readonly deps: {
      users: Pick<UsersStore, 'get'>;
      trusted: Pick<TrustedClustersStore, 'get'>;
      clusterName: string;
      now: Clock;
      /**
       * Claims a vouched word's id until it expires: false when it was claimed already. Storage
       * makes it once for the whole cluster; without it, once for this process.
       */
      claimWord?: (id: string, expires: Date) => Promise<boolean>;
    },
  ) {}

  /** Words claimed here when no storage claims them: id → expiry (ms). */
  private readonly claimed = new Map<string, number>();

  async challenge(user: string, subject: string): Promise<MfaChallenge | undefined> {
    const root = await this.rootOf(user);
    if (!root) return undefined;
    const nonce = randomBytes(18).toString('base64url');
    const now = this.deps.now();
    for (const [key, entry] of this.pending) if (entry.expires <= now) this.pending.delete(key);
    if (this.pending.size >= maxPending) throw accessDenied('too many checks waiting: try again');
    // A little past the socket's own wait: the root's round trip comes on top.
    const expires = now + sessionMfaTimeoutMs + 30_000;
    this.pending.set(`${user}\n${subject}`, { nonce, root, expires });
    return { totp_challenge: false, root_check: nonce };
  }

  async verify(user: string, subject: string, response: SessionMfaResponse): Promise<boolean> {
    const key = `${user}\n${subject}`;
    const entry = this.pending.get(key);
    if (!entry) return this.vouchedFor(user, subject, response);
    this.pending.delete(key);
    if (!('root_assertion' in response)) {
      throw accessDenied(`the MFA check for this session is ${entry.root}'s to run`);
    }
    if (entry.expires <= this.deps.now()) {
      throw accessDenied('the MFA check for this session expired');
    }
    await this.rootSaid(entry.root, user, entry.nonce, response.root_assertion);
    return true;
  }

  /**
   * A console call the root vouches for (a file transfer): the root ran the check for this
   * leaf subject itself (it holds the user's devices) and says so for a minute.
   */
  private async vouchedFor(
    user: string,
    subject: string,
    response: SessionMfaResponse,
  ): Promise<boolean> {
    if (!('root_assertion' in response)) return false;
    const root = await this.rootOf(user);
    if (!root) return false;
    const word = await this.rootSaid(root, user, subject, response.root_assertion);
    // A word is good for one session, tunnel or request: a copy of it (a replay) opens nothing.
    if (!(await this.claim(word.id, word.expires))) {
      throw accessDenied(`this MFA check from ${root} was already used: check again`);
    }
    return true;
  }

  private claim(id: string, expires: Date): Promise<boolean> {
    if (this.deps.claimWord) return this.deps.claimWord(id, expires);
    const now = this.deps.now();
    for (const [key, until] of this.claimed) if (until <= now) this.claimed.delete(key);
    if (this.claimed.has(id) || this.claimed.size >= maxPending) return Promise.resolve(false);
    this.claimed.set(id, expires.getTime());
    return Promise.resolve(true);
  }

  /** Throws unless `root`, which this cluster trusts, signed `check` for `user`; the word. */
  private async rootSaid(root: string, user: string, check: string, assertion: string) {
    const tc = await this.deps.trusted.get(root);
    if (!tc?.spec.enabled || !tc.trust) {
      throw accessDenied(`${this.deps.clusterName} does not trust ${root}`);
    }
    const asserted = await verifyRootAssertion(assertion, {
      rootKeyPem: tc.trust.identityKey,
      root,
      leaf: this.deps.clusterName,
      now: this.deps.now(),
    }).catch(() => undefined);
    if (asserted?.user !== user || asserted.check !== check) {
      throw accessDenied(`the MFA check ${root} answered did not check out`);
    }
    return asserted;
  }

  /** The root a user came from, for a trusted root's user (kept like an SSO user). */
  private async rootOf(user: string): Promise<string | undefined> {
    const connector = (await this.deps.users.get(user))?.user.spec.connector;
    return connector?.kind === 'trusted_cluster' ? connector.name : undefined;
  }
}
