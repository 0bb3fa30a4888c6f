/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: counters, gauges read
 * when scraped, and histograms, each with its HELP and TYPE lines. Small on purpose: no
 * dependency, no registry beyond the list the caller keeps.
 */

export type Labels = Readonly<Record<string, string>>;

export interface Metric {
  readonly name: string;
  /** The metric's lines: HELP, TYPE, then its samples. */
  render(): string;
}

/** The content type scrapers expect for this format. */
export const expositionContentType = 'text/plain; version=0.0.4; charset=utf-8';

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatLabels(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return pairs.length > 0 ? `{${pairs.join(',')}}` : '';
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
}

/** Sorted `k="v"` keys, so the same labels in another order are the same series. */
function seriesKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

/** A count that only goes up, per set of labels. */
export class Counter implements Metric {
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    private readonly help: string,
    /** Series shown at 0 before anything counts them (e.g. both results of a login). */
    initial: readonly Labels[] = [{}],
  ) {
    for (const labels of initial) this.inc(labels, 0);
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!(by >= 0)) return;
    const key = seriesKey(labels);
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { labels, value: by });
  }

  value(labels: Labels = {}): number {
    return this.series.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const { labels, value } of this.series.values()) {
      out += `${this.name}${formatLabels(labels)} ${formatValue(value)}\n`;
    }
    return out;
  }
}

/** A value read when scraped: `collect` returns each series' current value. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly collect: () => ReadonlyArray<{ labels?: Labels; value: number }>,
  ) {}

  render(): string {
    let out = header(this.name, this.help, 'gauge');
    for (const { labels, value } of this.collect()) {
      out += `${this.name}${formatLabels(labels ?? {})} ${formatValue(value)}\n`;
    }
    return out;
  }
}

/** Seconds from 1 ms to 10 s: storage reads and writes. */
export const latencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Observations in cumulative buckets, with their sum and count (one series, no labels). */
export class Histogram implements Metric {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly buckets: readonly number[] = latencyBuckets,
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    this.sum += value;
    this.count += 1;
    this.buckets.forEach((bound, i) => {
      if (value <= bound) this.counts[i]! += 1;
    });
  }

  /** How many observations there were. */
  observations(): number {
    return this.count;
  }

  render(): string {
    let out = header(this.name, this.help, 'histogram');
    this.buckets.forEach((bound, i) => {
      out += `${this.name}_bucket{le="${formatValue(bound)}"} ${this.counts[i]}\n`;
    });
    out += `${this.name}_bucket{le="+Inf"} ${this.count}\n`;
    out += `${this.name}_sum ${formatValue(this.sum)}\n`;
    out += `${this.name}_count ${this.count}\n`;
    return out;
  }
}

/** Every metric, one after the other. */
export function renderExposition(metrics: readonly Metric[]): string {
  return metrics.map((metric) => metric.render()).join('');
}
