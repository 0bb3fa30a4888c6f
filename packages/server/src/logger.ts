import pino, { type DestinationStream, type Logger } from 'pino';

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
 * Structured JSON logs on stdout, one object per line. Credentials never reach them: the
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
