import { emitAuditInBackground } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { readDiskUsage, systemStatfs, type DiskUsage, type StatfsReader } from './disk-usage.js';

export interface DiskUsageMonitorOptions {
  /** The recordings directory: its filesystem is the one watched. */
  dir: string;
  /** Usage (percent) at which the warning is given. */
  warnPercent: number;
  intervalMs: number;
  audit: AuditStore;
  log: (level: 'warn' | 'info', message: string, fields?: object) => void;
  /** The statfs seam: tests hand in a reader, since a real disk cannot be filled here. */
  statfs?: StatfsReader;
}

/**
 * Announces a filling recordings volume before writes start failing: a log warning and an audit
 * event when usage reaches the threshold, once per crossing (again only after it went below and
 * came back). The last reading is kept for a metric (there is no metrics endpoint yet).
 */
export class DiskUsageMonitor {
  private above = false;
  private last: DiskUsage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private unreadable = false;

  constructor(private readonly options: DiskUsageMonitorOptions) {}

  /** Checks now, then every interval. */
  start(): void {
    void this.check();
    this.timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** The latest reading, for a gauge such as `postern_recordings_disk_used_percent` later. */
  usage(): DiskUsage | undefined {
    return this.last;
  }

  /** One reading; overlapping calls share it. */
  check(): Promise<void> {
    this.running ??= this.measure().finally(() => (this.running = undefined));
    return this.running;
  }

  private async measure(): Promise<void> {
    const { dir, warnPercent, statfs = systemStatfs } = this.options;
    let usage: DiskUsage;
    try {
      usage = await readDiskUsage(dir, statfs);
      this.unreadable = false;
    } catch (error) {
      // Said once, not every minute, until a reading works again.
      if (!this.unreadable) {
        this.options.log('warn', 'cannot read the recordings volume usage', {
          dir,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
      this.unreadable = true;
      return;
    }
    this.last = usage;
    const wasAbove = this.above;
    this.above = usage.usedPercent >= warnPercent;
    if (!this.above || wasAbove) return;
    const fields = {
      path: dir,
      used_percent: Math.floor(usage.usedPercent * 10) / 10,
      threshold_percent: warnPercent,
      available_bytes: usage.availableBytes,
      total_bytes: usage.totalBytes,
    };
    this.options.log(
      'warn',
      `the recordings volume is ${fields.used_percent}% full: free space before recordings fail`,
      fields,
    );
    emitAuditInBackground(this.options.audit, 'TPOS071W', fields);
  }
}
