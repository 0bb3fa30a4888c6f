import { createHash } from 'node:crypto';
import type { JoinTokenRole, joinMethods } from '@postern/contracts';
import { NotFoundError, type Backend, type Item } from '../../backend/index.js';

export const joinTokensPrefix = '/tokens/';

/**
 * A join token as stored under `/tokens/<sha256 of the token>`: the token itself is never stored,
 * so a copy of the database lets nobody join. The backend's TTL is the token's expiry.
 */
export interface JoinTokenResource {
  kind: 'token';
  version: 'v2';
  metadata: {
    /** SHA-256 of the token, hex: the token's id in listings and `postern tokens rm`. */
    name: string;
    /** RFC 3339. */
    expires: string;
  };
  spec: {
    roles: JoinTokenRole[];
    joinMethod: (typeof joinMethods)[number];
    allow: { aws_account: string; aws_arn?: string }[];
    /** Labels the agent that joins with this token gets (suggested_agent_matcher_labels). */
    suggestedLabels: Record<string, string[]>;
    /** The `teleport.internal/resource-id` value every node joining with it carries. */
    internalResourceId: string;
    /** The token's last four characters, so a listing can show which is which, masked. */
    hint: string;
    createdAt: string;
    createdBy: string;
  };
}

export const hashJoinToken = (token: string) => createHash('sha256').update(token).digest('hex');

export class JoinTokensStore {
  constructor(private readonly backend: Backend) {}

  async create(token: JoinTokenResource): Promise<void> {
    await this.backend.create({
      key: joinTokensPrefix + token.metadata.name,
      value: JSON.stringify(token),
      expires: new Date(token.metadata.expires),
    });
  }

  async get(hash: string): Promise<JoinTokenResource | null> {
    if (!/^[0-9a-f]{64}$/.test(hash)) return null;
    const item = await this.backend.get(joinTokensPrefix + hash);
    return item ? tokenFromItem(item) : null;
  }

  async list(): Promise<JoinTokenResource[]> {
    const { items } = await this.backend.list({ prefix: joinTokensPrefix });
    return items.map(tokenFromItem);
  }

  /** False when it was gone already (expired, or deleted by someone else). */
  async delete(hash: string): Promise<boolean> {
    try {
      await this.backend.delete(joinTokensPrefix + hash);
      return true;
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }
}

const tokenFromItem = (item: Item) => JSON.parse(item.value) as JoinTokenResource;
