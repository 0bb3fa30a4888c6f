import type { AuditSearchQuery } from '@postern/contracts';
import { may, type Actor } from '../../access-control/access/actor.js';
import type { AuditStore, AuditStoredQuery } from './index.js';
import { visiblePage } from './visible-page.js';

/**
 * Searching the audit log as a user: both lists apply the caller's rules BEFORE paging
 * (`visiblePage`), so every page is full while visible events remain, and nothing tells how
 * many were hidden.
 */
export class AuditSearchService {
  /** The store with signed cursors (`SignedCursorAuditStore`): callers get only cursors we made. */
  constructor(private readonly audit: AuditStore) {}

  events(actor: Actor, query: AuditSearchQuery) {
    return visiblePage(
      query,
      (q) => this.audit.search(q),
      (event) => may(actor, 'event', 'read', event),
    );
  }

  /** The export's read: events in the order they were stored, the same per-event rule applied. */
  storedEvents(actor: Actor, query: AuditStoredQuery) {
    return visiblePage(
      query,
      (q) => this.audit.readStored(q),
      (event) => may(actor, 'event', 'read', event),
    );
  }

  /**
   * Ended sessions (recordings). Each is checked itself: the preset access role sees only
   * sessions it took part in (`contains(session.participants, user.metadata.name)`).
   */
  sessions(actor: Actor, query: AuditSearchQuery) {
    // Session ends only, whatever event types were asked for.
    return visiblePage(
      { ...query, eventTypes: undefined },
      (q) => this.audit.searchSessionEvents(q),
      (event) => may(actor, 'session', 'read', event),
    );
  }
}
