import type { HeadlessState } from '@postern/contracts';
import { AlreadyExistsError, type Backend, type Item } from '../../backend/index.js';

const prefix = '/headless_requests/';

/** A CLI's request for a browser's approval, stored under `/headless_requests/<id>`. */
export interface HeadlessRequest {
  /** 128 random bits, hex: whoever holds it can poll (not approve) the request. */
  id: string;
  user: string;
  clientIp: string;
  /** The OpenSSH line of the key the certificate will be for. */
  publicKey: string;
  /** The lifetime the CLI asked for, if any. */
  requestedTtlMs?: number;
  state: HeadlessState;
  /** RFC 3339. */
  created: string;
  /** RFC 3339: the last moment it can be approved. */
  expires: string;
  /** The key that approved it: the certificate carries it (an `mfa_device` lock covers both). */
  mfaDevice?: string;
}

export interface StoredHeadlessRequest {
  request: HeadlessRequest;
  revision: string;
}

export const headlessIdPattern = /^[0-9a-f]{32}$/;

/**
 * Storage only. Items outlive `expires` by `keepAfterExpiryMs` (backend TTL), so a CLI that
 * polls just after approval can still collect, and a late page load still says "expired"
 * rather than "not found"; after that the backend drops them.
 */
export class HeadlessStore {
  constructor(
    private readonly backend: Backend,
    private readonly keepAfterExpiryMs: number,
  ) {}

  async create(request: HeadlessRequest): Promise<boolean> {
    try {
      await this.backend.create(this.item(request));
      return true;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
  }

  async get(id: string): Promise<StoredHeadlessRequest | null> {
    if (!headlessIdPattern.test(id)) return null;
    const item = await this.backend.get(prefix + id);
    return item ? fromItem(item) : null;
  }

  /** False when someone else changed or removed it first (the state moves once). */
  async replace(stored: StoredHeadlessRequest, next: HeadlessRequest): Promise<boolean> {
    return this.conditional(() => this.backend.update(this.item(next), stored.revision));
  }

  /** Single use: of two collectors racing, only one deletes it. */
  async take(stored: StoredHeadlessRequest): Promise<boolean> {
    return this.conditional(() => this.backend.delete(prefix + stored.request.id, stored.revision));
  }

  private async conditional(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'compare_failed' || code === 'not_found') return false;
      throw error;
    }
  }

  private item(request: HeadlessRequest) {
    return {
      key: prefix + request.id,
      value: JSON.stringify(request),
      expires: new Date(Date.parse(request.expires) + this.keepAfterExpiryMs),
    };
  }
}

function fromItem(item: Item): StoredHeadlessRequest {
  return { request: JSON.parse(item.value) as HeadlessRequest, revision: item.revision };
}
