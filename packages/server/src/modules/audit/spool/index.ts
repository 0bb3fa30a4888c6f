export { alwaysAuditable, AuditUnavailableError, type AuditHealth } from './audit-health.js';
export {
  SpooledAuditStore,
  type AuditOnFailure,
  type AuditSpoolOptions,
} from './spooled-audit-store.js';
