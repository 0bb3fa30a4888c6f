import type { AuditCode } from '@postern/contracts';
import type { AuditEvent } from '../modules/audit/audit.types.js';
import type { TestApp } from './app-harness.testkit.js';

/**
 * The audit events of one code the app has stored so far, oldest first, searched up to a month
 * past the app's clock (tests that move the clock forward still find what they made).
 */
export async function auditEventsOf(
  app: Pick<TestApp, 'audit' | 'clock'>,
  code: AuditCode,
  limit = 2000,
): Promise<AuditEvent[]> {
  const { events } = await app.audit.search({
    from: new Date(0),
    to: new Date(app.clock.now() + 30 * 864e5),
    limit,
  });
  return events.filter((event) => event.code === code);
}
