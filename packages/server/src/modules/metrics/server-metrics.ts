import type { AuditEventInput, AuditStore } from '../audit/audit.types.js';
import { Counter, Gauge, Histogram, renderExposition, type Metric } from './exposition.js';

/** What the gauges read when scraped: the live sessions and the agents' tunnels. */
export interface MetricSources {
  /** Live sessions held by this proxy, by kind (terminals, kube, db, tracked desktops). */
  sessionsByKind(): ReadonlyMap<string, number>;
  /** Agents connected to this proxy through a tunnel. */
  agentTunnels(): number;
  /** Recordings written to the spool and waiting for their upload to the bucket (s3 only). */
  recordingUploadsWaiting?(): number;
}

/**
 * The metrics of one proxy (docs/high-availability.md, "Metrics"): counters and histograms that
 * the code paths move, and gauges read from the platform when `/metrics` is scraped.
 */
export class ServerMetrics {
  readonly logins = new Counter('postern_logins_total', 'Sign-ins by result.', [
    { result: 'success' },
    { result: 'failure' },
  ]);
  readonly backendLatency = new Histogram(
    'postern_backend_latency_seconds',
    "Time the readiness probe's cheap backend read took, in seconds.",
  );
  readonly auditEmitLatency = new Histogram(
    'postern_audit_emit_latency_seconds',
    'Time writing one audit event (or one batch) took, in seconds.',
  );
  readonly recordingBytes = new Counter(
    'postern_recording_bytes_total',
    'Bytes of session recordings handed to the recordings storage.',
  );
  readonly recordingUploadLag = new Histogram(
    'postern_recording_upload_lag_seconds',
    'Seconds from a recording part being whole in the spool to its upload to the bucket.',
  );
  private sources: MetricSources | undefined;

  /** Sets where the gauges read from (the platform, once it is built). */
  readFrom(sources: MetricSources): void {
    this.sources = sources;
  }

  /** Every metric in the Prometheus text format. */
  render(): string {
    const sources = this.sources;
    const gauges: Metric[] = [
      new Gauge('postern_sessions_active', 'Live sessions held by this proxy, by kind.', () =>
        [...(sources?.sessionsByKind() ?? new Map<string, number>())].map(([kind, value]) => ({
          labels: { kind },
          value,
        })),
      ),
      new Gauge('postern_agent_tunnels', 'Agents connected to this proxy through a tunnel.', () => [
        { value: sources?.agentTunnels() ?? 0 },
      ]),
      new Gauge(
        'postern_recording_uploads_waiting',
        'Recording parts in the spool waiting for their upload to the bucket.',
        () => [{ value: sources?.recordingUploadsWaiting?.() ?? 0 }],
      ),
    ];
    return renderExposition([
      ...gauges,
      this.logins,
      this.backendLatency,
      this.auditEmitLatency,
      this.recordingBytes,
      this.recordingUploadLag,
    ]);
  }

  /** Times `work` into `histogram`, whether it succeeds or fails. */
  static async timed<T>(histogram: Histogram, work: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    try {
      return await work();
    } finally {
      histogram.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}

/**
 * The audit store every part writes through, measured: each emit's latency, and sign-ins counted
 * from their `user.login` events (every way of signing in emits one, success or failure), so no
 * login path needs to know about metrics.
 */
export function meteredAudit(audit: AuditStore, metrics: ServerMetrics): AuditStore {
  const countLogin = (event: AuditEventInput) => {
    if (event.event !== 'user.login') return;
    const success =
      typeof event.success === 'boolean' ? event.success : String(event.code).endsWith('I');
    metrics.logins.inc({ result: success ? 'success' : 'failure' });
  };
  return new Proxy(audit, {
    get(target, property) {
      if (property === 'emit') {
        return (event: AuditEventInput) => {
          // Counted whether or not the event is written: the sign-in happened either way.
          countLogin(event);
          return ServerMetrics.timed(metrics.auditEmitLatency, () => target.emit(event));
        };
      }
      if (property === 'emitBatch') {
        return (events: readonly AuditEventInput[]) => {
          events.forEach(countLogin);
          return ServerMetrics.timed(metrics.auditEmitLatency, () => target.emitBatch(events));
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
