import { afterEach, describe, expect, it } from 'vitest';
import { ScreenMirror } from './screen-mirror.js';

const mirrors: ScreenMirror[] = [];
afterEach(async () => {
  await Promise.all(mirrors.splice(0).map((m) => m.stop()));
});

function mirror(options?: ConstructorParameters<typeof ScreenMirror>[0]) {
  const m = new ScreenMirror(options);
  mirrors.push(m);
  return m;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('ScreenMirror', () => {
  it('snapshots exactly what was written before it, batched or not yet handed over', async () => {
    const m = mirror({ flushDelayMs: 10 });
    m.open('s1', 40, 5);
    m.open('s2', 40, 5);
    m.write('s1', bytes('first\r\n'));
    await new Promise((resolve) => setTimeout(resolve, 50)); // handed over in a batch
    m.write('s1', bytes('second\r\n'));
    m.write('s2', bytes('other session'));
    const screen = await m.snapshot('s1'); // 'second' is still pending here
    expect(screen).toContain('first');
    expect(screen).toContain('second');
    expect(screen).not.toContain('other');
    expect(await m.snapshot('s2')).toContain('other session');
  });

  it('applies a resize after the output written before it, and before what follows', async () => {
    const m = mirror();
    m.open('s', 20, 5);
    // "Cursor forward 999" stops at the last column, so X lands at the width of its time.
    m.write('s', bytes('\x1b[999CX'));
    m.resize('s', 40, 5);
    m.write('s', bytes('\x1b[999CY'));
    expect(await m.snapshot('s')).toBe('\x1b[19CX\x1b[19CY');
  });

  it('keeps a flood bounded: the latest output survives, the worker neither lags nor dies', async () => {
    const m = mirror({ maxPendingBytes: 64 * 1024 });
    m.open('s', 80, 24);
    // 64 MB at once: more than xterm's own 50 MB write queue, which used to throw in the worker
    // and lose the screen of every session.
    const line = (n: number) => `line ${String(n).padStart(8, '0')} ${'y'.repeat(60)}\r\n`;
    let n = 0;
    const started = Date.now();
    while (n < 800_000) {
      let chunk = '';
      for (let i = 0; i < 800; i++) chunk += line(n++);
      m.write('s', bytes(chunk));
    }
    const screen = await m.snapshot('s');
    expect(screen).toContain(`line ${String(n - 1).padStart(8, '0')}`);
    expect(Date.now() - started).toBeLessThan(10_000);
    m.write('s', bytes('\x1b[2J\x1b[Hafter the flood'));
    expect(await m.snapshot('s')).toContain('after the flood');
  });

  it('parses at most maxPendingBytes per batch of a steady flood, and still snapshots it exactly', async () => {
    const maxPendingBytes = 64 * 1024;
    const m = mirror({ maxPendingBytes, flushDelayMs: 100 });
    m.open('s', 80, 24);
    const started = Date.now();
    let written = 0;
    let n = 0;
    // Several MiB/s for a second, in pieces, the event loop turning in between.
    while (Date.now() - started < 1000) {
      let chunk = '';
      for (let i = 0; i < 100; i++)
        chunk += `flood ${String(n++).padStart(8, '0')} ${'z'.repeat(64)}\r\n`;
      m.write('s', bytes(chunk));
      written += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const batches = (Date.now() - started) / 100 + 2;
    expect(written).toBeGreaterThan(2 * 1024 * 1024);
    expect(m.handedOver).toBeLessThan(written / 2);
    expect(m.handedOver).toBeLessThanOrEqual(batches * (maxPendingBytes + 64 * 1024));
    expect(await m.snapshot('s')).toContain(`flood ${String(n - 1).padStart(8, '0')}`);
  });
});
