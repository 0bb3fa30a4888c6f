import { ConfigError } from './config-error.js';

const unitMs: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * A duration as the config file writes it: '12h', '30m', '90s', '1h30m', '500ms', or a number of
 * seconds. Returns milliseconds; a malformed value stops the server with a message naming `what`.
 */
export function parseDuration(value: string | number, what: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) {
      throw new ConfigError(`${what} must be a duration such as 30m or a number of seconds`);
    }
    return Math.round(value * 1000);
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new ConfigError(
      `${what} must be a duration such as 12h, 30m, 90s or 1h30m, got '${value}'`,
    );
  }
  return Math.round(
    parts.reduce((total, [, amount, unit]) => total + Number(amount) * unitMs[unit!]!, 0),
  );
}

/** The shortest readable form of a duration, for messages: 3600000 → '1h'. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
