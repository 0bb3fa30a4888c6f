import type { TimeRangeFilter } from '../../components/timeRange';

/** The Audit Log's filters: a time range, event types and text, all applied by the server. */
export interface AuditFilter extends TimeRangeFilter {
  /** Event types (`include=`); empty means all. */
  types: string[];
  /** Free text the server matches against each event's JSON. */
  search: string;
}
