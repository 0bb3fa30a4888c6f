import type { AuditCode } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import {
  lockMessage,
  marksOf,
  type CredentialMarks,
  type LockView,
} from '../../access-control/locks/lock-watcher.js';
import type { Clock } from '../../clock.js';
import { emitAuditInBackground, remoteAddr } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';

/** How often the root checks its own locks and the credential's end on a relayed hop. */
const recheckMs = 1_000;

/**
 * Who goes: the root's locks on them (their roles, and their credential's marks: the MFA device
 * it was proven with, the bot instance it was issued to, the access requests it assumed) end the
 * hop.
 */
export interface LeafHop extends CredentialMarks {
  user: string;
  roles: string[];
  /** When their credential ends (ms): the hop ends with it. */
  expiresMs: number;
  remoteAddr: string;
  /** The audit events of the hop's start and end, and what they say of it. */
  codes: { start: AuditCode; end: AuditCode };
  fields: Record<string, unknown>;
}

/**
 * A hop through this root to a leaf (`ssh` to a leaf's server, a database or app tunnel): both
 * ways until either side ends, or the root locks the user (or their device) or their credential
 * ends. The root audits the hop's start and end: the session itself is the leaf's to record, but
 * an auditor reading only the root's log still sees who went where, when, and why it ended.
 */
export function relayLeafHop(
  client: Duplex,
  upstream: Duplex,
  hop: LeafHop,
  deps: {
    locks: LockView;
    audit: AuditStore;
    now: Clock;
    log: (message: string, fields: object) => void;
  },
): void {
  const started = deps.now();
  const fields = { ...hop.fields, user: hop.user, ...remoteAddr(hop.remoteAddr) };
  emitAuditInBackground(deps.audit, hop.codes.start, fields);
  client.pipe(upstream).pipe(client);
  const watch = setInterval(() => {
    const lock = deps.locks.lockFor({ user: hop.user, roles: hop.roles, ...marksOf(hop) });
    if (!lock && deps.now() < hop.expiresMs) return;
    const reason = lock ? `locked: ${lockMessage(lock)}` : 'the certificate expired';
    deps.log('ending a hop to a leaf', { user: hop.user, reason, ...hop.fields });
    end(reason);
  }, recheckMs);
  watch.unref();
  let ended = false;
  const end = (reason = 'closed') => {
    if (ended) return;
    ended = true;
    clearInterval(watch);
    upstream.destroy();
    client.destroy();
    const duration_ms = deps.now() - started;
    emitAuditInBackground(deps.audit, hop.codes.end, { ...fields, reason, duration_ms });
  };
  for (const side of [client, upstream]) {
    side.on('close', () => end());
    side.on('error', () => end('the connection failed'));
  }
}
