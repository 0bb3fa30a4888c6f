import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogFormat } from './config/config.js';
import { textDestination } from './log-text.js';

/**
 * Path segments that are credentials: invite and reset links (`/web/invite/<id>`,
 * `users/password/token/<id>`), privilege tokens (`mfa/token/<id>/…`) and headless login ids
 * (`/headless/<id>`, which a CLI polls for its certificate). Request logs show
 * the path with the id replaced.
 */
const tokenInPath = /(\/(?:invite|reset|password\/token|mfa\/token|headless)\/)(?!login\b)[^/?#]+/g;

export function redactUrl(url: string): string {
  return url.replace(tokenInPath, '$1[redacted]');
}

/**
 * Structured JSON logs on stdout, one object per line (or, through `destination`, the readable
 * lines of log-text.ts). Credentials never reach them: the
 * authorization header, cookies and tokens are redacted wherever they appear, and request URLs
 * lose the token segments above.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'postern' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.token',
          '*.password',
        ],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method?: string; url?: string; ip?: string; host?: string }) => ({
          method: req.method,
          url: redactUrl(req.url ?? ''),
          host: req.host,
          remoteAddress: req.ip,
        }),
      },
    },
    destination,
  );
}

/**
 * Where `postern start` logs: readable lines for a person at a terminal (`text`, or `auto` when
 * stdout is one), otherwise pino's own JSON lines on stdout (undefined).
 */
export function logDestination(
  format: LogFormat,
  stdout: { isTTY?: boolean; write(text: string): unknown },
): DestinationStream | undefined {
  const text = format === 'text' || (format === 'auto' && stdout.isTTY === true);
  return text ? textDestination(stdout) : undefined;
}
