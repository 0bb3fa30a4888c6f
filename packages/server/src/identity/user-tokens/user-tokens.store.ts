import { createHash, randomBytes } from 'node:crypto';
import { BackendError, type Backend } from '../../backend/index.js';
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';

export type UserTokenType = 'invite' | 'password' | 'privilege';

/**
 * A one-time token: an invite or reset link, or a privilege token (a fresh second factor, for
 * changing devices). Stored under the SHA-256 of its id, like web sessions, so a copy of the
 * database does not yield usable links.
 */
export interface UserTokenRecord {
  user: string;
  type: UserTokenType;
  created: string;
  expires: string;
  /** The TOTP secret offered for registration; replaced on every read of an invite or reset. */
  totpSecret?: string;
}

export interface FoundToken {
  record: UserTokenRecord;
  hash: string;
  revision: string;
}

const prefix = '/user_tokens/';

export const hashTokenId = (tokenId: string) => createHash('sha256').update(tokenId).digest('hex');

/** Every bad, used or expired token gets this one answer, so a guess learns nothing. */
export const badToken = () => notFound('bad or expired token');

export class UserTokensStore {
  constructor(
    private readonly backend: Backend,
    private readonly now: Clock,
  ) {}

  async create(record: UserTokenRecord): Promise<string> {
    const tokenId = randomBytes(16).toString('hex');
    await this.backend.create({
      key: prefix + hashTokenId(tokenId),
      value: JSON.stringify(record),
      expires: new Date(record.expires),
    });
    return tokenId;
  }

  /** A live token of one of `types`; anything else is the same 404. */
  async find(tokenId: string, types: UserTokenType[]): Promise<FoundToken> {
    if (!/^[0-9a-f]{32}$/.test(tokenId)) throw badToken();
    const hash = hashTokenId(tokenId);
    const item = await this.backend.get(prefix + hash);
    if (!item) throw badToken();
    const record = JSON.parse(item.value) as UserTokenRecord;
    if (!types.includes(record.type) || Date.parse(record.expires) <= this.now()) throw badToken();
    return { record, hash, revision: item.revision };
  }

  /** Replaces a token's content; returns the new revision (a consumer must name the latest). */
  async update(token: FoundToken, record: UserTokenRecord): Promise<FoundToken> {
    try {
      const item = await this.backend.update(
        {
          key: prefix + token.hash,
          value: JSON.stringify(record),
          expires: new Date(record.expires),
        },
        token.revision,
      );
      return { record, hash: token.hash, revision: item.revision };
    } catch (error) {
      if (error instanceof BackendError) throw badToken();
      throw error;
    }
  }

  /**
   * Uses a token up. The delete names the revision that was checked, so of two requests racing
   * with one token only one succeeds, and a token changed since (a new TOTP secret) is refused.
   */
  async consume(token: FoundToken): Promise<void> {
    try {
      await this.backend.delete(prefix + token.hash, token.revision);
    } catch (error) {
      if (error instanceof BackendError) throw badToken();
      throw error;
    }
  }

  /** Removes a user's pending invite and reset links: only the newest one works. */
  async deleteLinksOf(user: string): Promise<void> {
    const { items } = await this.backend.list({ prefix });
    for (const item of items) {
      const record = JSON.parse(item.value) as UserTokenRecord;
      if (record.user === user && record.type !== 'privilege') {
        await this.backend.delete(item.key).catch(() => undefined);
      }
    }
  }
}
