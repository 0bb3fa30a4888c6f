import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs on stdout, one object per line. Credentials never reach them: the
 * authorization header, cookies and tokens are redacted wherever they appear.
 */
export function createLogger(level: string): Logger {
  return pino({
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
  });
}
