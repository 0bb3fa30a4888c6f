import { execFile } from 'node:child_process';
import { parseDuration } from '../../../config/duration.js';
import type { CommandLabel } from './nodes.store.js';

export interface CommandLabelSpec {
  /** The program and its arguments; run without a shell. */
  command: string[];
  /** How often: '1m', '30s', '1h'. At least one second. */
  period: string;
}

export interface CommandLabelsOptions {
  /** A command still running after this is killed and its label says so. Default 30 s. */
  timeoutMs?: number;
}

/** Labels are short: longer output is cut, so one chatty command cannot bloat every heartbeat. */
const maxResultLength = 1024;
const minPeriodMs = 1000;

/**
 * The node side of command labels: runs each command on its period and keeps its last output,
 * trimmed, for the next heartbeat. A failing command's label reads `error: …`, so the problem is
 * visible in the console rather than a stale value. A run still going when its period comes round
 * again is not doubled.
 */
export class CommandLabels {
  private readonly results = new Map<string, string>();
  private readonly running = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly periods = new Map<string, number>();

  constructor(
    private readonly specs: Readonly<Record<string, CommandLabelSpec>>,
    private readonly options: CommandLabelsOptions = {},
  ) {
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.command.length === 0) throw new Error(`command label ${name}: no command`);
      const ms = parseDuration(spec.period, `command label ${name} period`);
      if (ms < minPeriodMs) throw new Error(`command label ${name}: period under one second`);
      this.periods.set(name, ms);
    }
  }

  /** Runs every command once now (resolving when all are done), then on their periods. */
  async start(): Promise<void> {
    await this.runAll();
    for (const [name, ms] of this.periods) {
      const timer = setInterval(() => void this.run(name), ms);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  /** Every label with its last result ('' before its first run ends), for a heartbeat. */
  values(): Record<string, CommandLabel> {
    return Object.fromEntries(
      Object.entries(this.specs).map(([name, spec]) => [
        name,
        { command: [...spec.command], period: spec.period, result: this.results.get(name) ?? '' },
      ]),
    );
  }

  async runAll(): Promise<void> {
    await Promise.all(Object.keys(this.specs).map((name) => this.run(name)));
  }

  private async run(name: string): Promise<void> {
    const spec = this.specs[name];
    if (!spec || this.running.has(name)) return;
    this.running.add(name);
    try {
      this.results.set(name, clip(await this.exec(spec.command)));
    } catch (error) {
      this.results.set(name, clip(`error: ${describe(error)}`));
    } finally {
      this.running.delete(name);
    }
  }

  private exec([file, ...args]: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        file!,
        args,
        { timeout: this.options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024, windowsHide: true },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  }
}

const clip = (text: string) => text.trim().slice(0, maxResultLength);

function describe(error: unknown): string {
  const failure = error as { killed?: boolean; code?: unknown; message?: string };
  if (failure.killed) return 'timed out';
  if (typeof failure.code === 'number') return `exit status ${failure.code}`;
  return failure.message?.split('\n')[0] ?? String(error);
}
