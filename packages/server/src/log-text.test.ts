import { describe, expect, it } from 'vitest';
import { formatLogLine } from './log-text.js';
import { createLogger, logDestination } from './logger.js';

/** A logger writing readable lines into an array, as `postern start` does on a terminal. */
function textLogger() {
  const out: string[] = [];
  const destination = logDestination('text', { write: (text: string) => out.push(text) });
  return { logger: createLogger('info', destination), out };
}

const clock = /^\d\d:\d\d:\d\d$/;

describe('readable log lines', () => {
  it('show time, level, message and the key fields on one line', () => {
    const { logger, out } = textLogger();
    logger.warn({ nodeId: 'n-1', port: 3022, note: 'two words' }, 'serving this host');
    expect(out).toHaveLength(1);
    const [time, ...rest] = out[0]!.split(' ');
    expect(time).toMatch(clock);
    expect(rest.join(' ')).toBe(
      'WARN   serving this host  nodeId=n-1  port=3022  note="two words"\n',
    );
  });

  it('put each link on a line of its own, and not twice when the message ends with it', () => {
    const { logger, out } = textLogger();
    logger.info(
      { consoleUrl: 'https://localhost:3080/web', cluster: 'lab' },
      'Postern is serving the console at https://localhost:3080/web',
    );
    const lines = out.join('').split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO {3}Postern is serving the console at$/);
    expect(lines.slice(1)).toEqual([
      `${' '.repeat(16)}https://localhost:3080/web`,
      `${' '.repeat(16)}cluster=lab`,
      '',
    ]);
  });

  it('keep credentials redacted, as the JSON lines do', () => {
    const { logger, out } = textLogger();
    logger.info(
      {
        req: { method: 'GET', url: '/web/invite/0123456789abcdef', headers: { cookie: 's=1' } },
        body: { token: 'secret-token', password: 'hunter2' },
      },
      'request',
    );
    const text = out.join('');
    expect(text).toContain('GET /web/invite/[redacted]');
    expect(text).toContain('"token":"[redacted]"');
    for (const secret of ['0123456789abcdef', 'secret-token', 'hunter2', 's=1']) {
      expect(text).not.toContain(secret);
    }
  });

  it('show an error with its message and stack', () => {
    const { logger, out } = textLogger();
    logger.error({ err: new Error('disk full') }, 'audit retention failed');
    const lines = out.join('').split('\n');
    expect(lines[0]).toMatch(/ERROR {2}audit retention failed {2}err="disk full"$/);
    expect(lines[1]).toMatch(/^ {16}at /);
  });

  it('pass a line that is not JSON through as it is', () => {
    expect(formatLogLine('plain words')).toBe('plain words\n');
  });
});

describe('the log format', () => {
  it('is readable on a terminal and JSON elsewhere under auto; json and text force it', () => {
    const tty = { isTTY: true, write: () => true };
    const pipe = { write: () => true };
    expect(logDestination('auto', tty)).toBeDefined();
    expect(logDestination('auto', pipe)).toBeUndefined();
    expect(logDestination('json', tty)).toBeUndefined();
    expect(logDestination('text', pipe)).toBeDefined();
  });
});
