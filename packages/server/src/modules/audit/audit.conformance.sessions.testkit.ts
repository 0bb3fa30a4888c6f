import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEventInput, ReplayableAuditStore } from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { at, everything, times } from './audit.conformance.shared.testkit.js';
import type { ConformanceContext } from './audit.conformance.shared.testkit.js';

/** searchSessionEvents: the session end events the recordings list reads. */
export function describeSessionEvents(ctx: ConformanceContext): void {
  let store: ReplayableAuditStore & AuditChainSource;
  const emitAll = (inputs: AuditEventInput[]) => ctx.emitAll(inputs);
  beforeEach(() => {
    ({ store } = ctx);
  });

  describe('searchSessionEvents', () => {
    it('returns only session end events, terminal and desktop', async () => {
      const types = [
        'session.start',
        'session.end',
        'windows.desktop.session.start',
        'windows.desktop.session.end',
        'session.join',
        'user.login',
      ];
      await emitAll(types.map((event, i) => ({ event, code: 'C', time: at(i), sid: `s${i}` })));
      const { events, startKey } = await store.searchSessionEvents({
        ...everything,
        limit: 10,
        order: 'asc',
      });
      expect(events.map((event) => event.event)).toEqual([
        'session.end',
        'windows.desktop.session.end',
      ]);
      expect(startKey).toBe('');
    });

    // The Session Recordings page searches on the server; its rows show the host (or the
    // Kubernetes cluster, or the desktop), the participants and the session id.
    it('finds by the text a recording row shows, among session end events only', async () => {
      await emitAll([
        {
          event: 'session.end',
          code: 'T2004I',
          time: at(1),
          sid: 'sid-ssh-1',
          participants: ['alice', 'bob'],
          server_hostname: 'web-01',
        },
        {
          event: 'session.end',
          code: 'T2004I',
          time: at(2),
          sid: 'sid-kube-2',
          participants: ['carol'],
          proto: 'kube',
          kubernetes_cluster: 'Prod-Kube',
        },
        {
          event: 'windows.desktop.session.end',
          code: 'TDP01I',
          time: at(3),
          session_id: 'sid-desk-3',
          user: 'dave',
          desktop_name: 'win-desk',
        },
        // Same host and user, but not an end event: never a recording.
        {
          event: 'session.start',
          code: 'T2000I',
          time: at(4),
          user: 'bob',
          server_hostname: 'web-01',
        },
      ]);
      const found = async (search: string) =>
        times((await store.searchSessionEvents({ ...everything, limit: 10, search })).events);
      expect(await found('WEB-01')).toEqual([1]);
      expect(await found('bob')).toEqual([1]);
      expect(await found('sid-kube')).toEqual([2]);
      expect(await found('prod-kube')).toEqual([2]);
      expect(await found('win-desk')).toEqual([3]);
      expect(await found('sid-desk-3')).toEqual([3]);
      expect(await found('nobody')).toEqual([]);
      const first = await store.searchSessionEvents({ ...everything, limit: 1, search: 'sid-' });
      expect(times(first.events)).toEqual([3]);
      const rest = await store.searchSessionEvents({
        ...everything,
        limit: 10,
        search: 'sid-',
        startKey: first.startKey,
      });
      expect(times(rest.events)).toEqual([2, 1]);
    });
  });
}
