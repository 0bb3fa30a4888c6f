import type { Backend } from '../../backend/index.js';
import { ServerMetrics } from '../metrics/server-metrics.js';

/** A watched cache as readiness sees it: loaded once, and stale while its watch is broken. */
export interface CacheState {
  name: string;
  loaded: boolean;
  stale: boolean;
}

export interface ReadinessDeps {
  backend: Pick<Backend, 'get'>;
  /** The watched caches a request is judged against: roles, users, locks. */
  caches: () => CacheState[];
  /** True once the proxy drains before it stops. */
  draining: () => boolean;
  metrics?: ServerMetrics;
  /** How long the backend read may take before the proxy is not ready (default 2 s). */
  timeoutMs?: number;
}

export interface Readiness {
  ready: boolean;
  /** `ok`, or a short word for what is wrong; never an error's text (no internals leak). */
  checks: { backend: string; caches: string; drain: string };
}

/** A key nobody writes: reading it costs one indexed lookup and answers null. */
const probeKey = '/readiness/probe';

/**
 * Whether this proxy should get traffic from a load balancer: the backend answers a cheap read
 * in time, the watched roles, users and locks are loaded and not stale, and the proxy is not
 * draining. Concurrent probes share one backend read, so a hung backend does not pile them up.
 */
export class ReadinessService {
  private inFlight: Promise<string> | undefined;

  constructor(private readonly deps: ReadinessDeps) {}

  async check(): Promise<Readiness> {
    // Draining settles it: the load balancer must hear it at once, not after a slow backend read.
    const backend = this.deps.draining() ? 'skipped' : await this.probeBackend();
    const notReady = this.deps
      .caches()
      .filter((cache) => !cache.loaded || cache.stale)
      .map((cache) => cache.name);
    const checks = {
      backend,
      caches: notReady.length === 0 ? 'ok' : `stale: ${notReady.join(', ')}`,
      drain: this.deps.draining() ? 'draining' : 'ok',
    };
    // A skipped backend read happens only while draining, which is not ready anyway.
    return { ready: Object.values(checks).every((value) => value === 'ok'), checks };
  }

  private probeBackend(): Promise<string> {
    this.inFlight ??= this.readWithin().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async readWithin(): Promise<string> {
    const timeoutMs = this.deps.timeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const histogram = this.deps.metrics?.backendLatency;
    const read = () => this.deps.backend.get(probeKey);
    const answered = (histogram ? ServerMetrics.timed(histogram, read) : read()).then(
      () => 'ok',
      () => 'unreachable',
    );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
