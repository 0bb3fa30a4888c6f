import { ConfigError } from '../config/config-error.js';
import { parseDuration } from '../config/duration.js';

const dayMs = 24 * 3_600_000;

/**
 * A `--since` flag: `7d`, any duration the config takes (`12h`, `90m`), or an RFC 3339 time.
 * Answers the moment it names, counted back from `now`.
 */
export function parseSinceFlag(text: string, now: number, flag = '--since'): Date {
  const days = /^(\d+)d$/.exec(text.trim());
  if (days) return new Date(now - Number(days[1]) * dayMs);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(text);
    if (Number.isNaN(at)) throw new ConfigError(`${flag}: '${text}' is not an RFC 3339 time`);
    return new Date(at);
  }
  return new Date(now - parseDuration(text, flag));
}

/** A count flag such as `--limit`: a whole number above 0. */
export function parsePositiveFlag(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    throw new ConfigError(`${flag} must be a whole number above 0, got '${text}'`);
  }
  return n;
}
