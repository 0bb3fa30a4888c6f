import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CommandLabels } from './command-labels.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-cmd-labels-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('CommandLabels', () => {
  it('runs each command without a shell and keeps its trimmed output', async () => {
    const labels = new CommandLabels({
      greeting: { command: ['echo', '  hello   world  '], period: '1h' },
      literal: { command: ['echo', '$HOME; id'], period: '1h' },
    });
    expect(labels.values().greeting!.result).toBe('');
    await labels.start();
    labels.stop();
    expect(labels.values()).toEqual({
      greeting: { command: ['echo', '  hello   world  '], period: '1h', result: 'hello   world' },
      literal: { command: ['echo', '$HOME; id'], period: '1h', result: '$HOME; id' },
    });
  });

  it('says when a command fails, is missing or runs too long', async () => {
    const labels = new CommandLabels(
      {
        fails: { command: ['false'], period: '1m' },
        missing: { command: ['/no/such/program'], period: '1m' },
        slow: { command: ['sleep', '5'], period: '1m' },
      },
      { timeoutMs: 200 },
    );
    await labels.runAll();
    const results = Object.fromEntries(
      Object.entries(labels.values()).map(([name, label]) => [name, label.result]),
    );
    expect(results.fails).toBe('error: exit status 1');
    expect(results.missing).toMatch(/^error: .*ENOENT/);
    expect(results.slow).toBe('error: timed out');
  });

  it('runs again on its period', async () => {
    const counter = path.join(dir, 'runs');
    const labels = new CommandLabels({
      runs: { command: ['sh', '-c', `echo x >> '${counter}'; wc -l < '${counter}'`], period: '1s' },
    });
    await labels.start();
    try {
      expect(labels.values().runs!.result).toBe('1');
      await vi.waitFor(() => expect(labels.values().runs!.result).toBe('2'), { timeout: 2500 });
    } finally {
      labels.stop();
    }
  });

  it('refuses an empty command or a period under a second', () => {
    expect(() => new CommandLabels({ a: { command: [], period: '1m' } })).toThrow(/no command/);
    expect(() => new CommandLabels({ a: { command: ['date'], period: '10ms' } })).toThrow(
      /under one second/,
    );
    expect(() => new CommandLabels({ a: { command: ['date'], period: 'often' } })).toThrow(
      /period/,
    );
  });
});
