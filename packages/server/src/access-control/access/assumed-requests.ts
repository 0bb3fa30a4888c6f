import { EventEmitter } from 'node:events';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import type { Clock } from '../../clock.js';
import { resourceKey } from '../rbac/index.js';
import {
  accessRequestFromItem,
  accessRequestsPrefix,
} from '../access-requests/access-requests.store.js';
import { effectiveState, type AccessRequestResource } from '../access-requests/access-request.js';

/** What the assumed requests add: roles, and for those requested for resources, which ones. */
export interface AssumedGrant {
  roles: string[];
  restrictions: Map<string, Set<string>>;
}

/** Timers further out than this are set again later (setTimeout's limit is about 24.8 days). */
const longestTimerMs = 24 * 3600 * 1000;

/**
 * Every access request in memory, kept current through the backend's watch, so that an approval
 * (or a deletion) made on any proxy changes what assumed requests grant on every proxy at once.
 * Emits 'change' on every write and when an approved request's access runs out, so the session
 * hub judges live sessions again and ends those only the request allowed.
 */
export class AssumedRequests extends EventEmitter<{ change: [] }> {
  readonly cache: WatchedCache<AccessRequestResource>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    backend: Backend,
    private readonly now: Clock,
    onError?: (error: unknown) => void,
  ) {
    super();
    this.cache = new WatchedCache(backend, {
      prefix: accessRequestsPrefix,
      parse: accessRequestFromItem,
      onError,
    });
    const changed = () => {
      this.schedule();
      this.emit('change');
    };
    this.cache.on('put', changed).on('delete', changed);
  }

  async start(): Promise<void> {
    await this.cache.start();
    this.schedule();
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.cache.close();
  }

  /** Bumps whenever what some request grants may have changed (a write or an expiry). */
  get generation(): number {
    return this.cache.generation;
  }

  /**
   * The roles the named requests add for `user` now: only the user's own, approved requests whose
   * access has not ended. Others' ids, pending, denied and expired requests add nothing.
   */
  grantOf(user: string, requestIds: readonly string[]): AssumedGrant {
    const free = new Set<string>();
    const limited = new Map<string, Set<string>>();
    for (const request of this.liveOf(user, requestIds)) {
      const { roles, resources } = request.spec;
      if (resources.length === 0) {
        for (const role of roles) free.add(role);
        continue;
      }
      // A request for resources gives its roles for those resources only.
      for (const role of roles) {
        const keys = limited.get(role) ?? new Set<string>();
        for (const r of resources) keys.add(resourceKey(r.kind, r.name));
        limited.set(role, keys);
      }
    }
    for (const role of free) limited.delete(role);
    return { roles: [...new Set([...free, ...limited.keys()])].sort(), restrictions: limited };
  }

  /** The named requests that still grant `user` something now. */
  liveOf(user: string, requestIds: readonly string[]): AccessRequestResource[] {
    const now = this.now();
    return requestIds.flatMap((id) => {
      const request = this.cache.get(id);
      const live = request?.spec.user === user && effectiveState(request, now) === 'APPROVED';
      return live ? [request] : [];
    });
  }

  /** Wakes up at the next end of an approved request's access, to say that something changed. */
  private schedule(): void {
    clearTimeout(this.timer);
    const now = this.now();
    const ends = this.cache
      .values()
      .filter((r) => r.spec.state === 'APPROVED')
      .map((r) => Date.parse(r.spec.accessExpires))
      .filter((end) => end > now);
    if (ends.length === 0) return;
    const wait = Math.min(Math.min(...ends) - now + 5, longestTimerMs);
    this.timer = setTimeout(() => {
      this.schedule();
      this.emit('change');
    }, wait);
    this.timer.unref();
  }
}
