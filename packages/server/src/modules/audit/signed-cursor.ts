import { createHmac } from 'node:crypto';
import { sameSecret } from '../../secrets.js';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStore,
  AuditStoredQuery,
} from './audit.types.js';
import { InvalidStartKeyError } from './audit.types.js';

/**
 * An audit store whose paging cursors (`startKey`) carry an HMAC under a cluster secret: the API
 * hands out only cursors it made, so a forged or altered one is refused (400 `bad_parameter`)
 * before it reaches a query, and a cursor cannot be used to probe positions in the log. Both
 * stores share the cursor format, so this wraps either; everything else passes through.
 */
export class SignedCursorAuditStore implements AuditStore {
  constructor(
    private readonly inner: AuditStore,
    private readonly secret: Buffer,
  ) {}

  emit(event: AuditEventInput): Promise<AuditEvent> {
    return this.inner.emit(event);
  }

  emitBatch(events: readonly AuditEventInput[]): Promise<AuditEvent[]> {
    return this.inner.emitBatch(events);
  }

  async search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    return this.signed(await this.inner.search(this.verified(q)));
  }

  async readStored(q: AuditStoredQuery): Promise<AuditSearchResult> {
    return this.signed(await this.inner.readStored(this.verified(q)));
  }

  async searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.signed(await this.inner.searchSessionEvents(this.verified(q)));
  }

  removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    return this.inner.removeOlderThan(cutoff, batchSize);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private verified<Q extends { startKey?: string }>(q: Q): Q {
    if (!q.startKey) return q;
    const dot = q.startKey.lastIndexOf('.');
    const [key, mac] = [q.startKey.slice(0, dot), q.startKey.slice(dot + 1)];
    if (dot <= 0 || !sameSecret(mac, this.mac(key))) throw new InvalidStartKeyError();
    return { ...q, startKey: key };
  }

  private signed(page: AuditSearchResult): AuditSearchResult {
    if (!page.startKey) return page;
    return { ...page, startKey: `${page.startKey}.${this.mac(page.startKey)}` };
  }

  private mac(key: string): string {
    return createHmac('sha256', this.secret).update(`audit-start-key\n${key}`).digest('base64url');
  }
}
