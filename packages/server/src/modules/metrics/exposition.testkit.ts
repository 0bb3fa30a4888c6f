import { expect } from 'vitest';

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*)\})? (\S+)$/;

/**
 * Parses Prometheus text exposition strictly enough to catch a malformed line: every line is
 * HELP, TYPE or a sample, and every sample belongs to a family whose TYPE came before it.
 */
export function parseExposition(text: string): ParsedSample[] {
  expect(text.endsWith('\n')).toBe(true);
  const types = new Map<string, string>();
  const samples: ParsedSample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$/.exec(line);
    if (help) continue;
    const type =
      /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      expect(types.has(type[1]!), `TYPE of ${type[1]} twice`).toBe(false);
      types.set(type[1]!, type[2]!);
      continue;
    }
    const sample = sampleLine.exec(line);
    expect(sample, `not an exposition line: ${line}`).not.toBeNull();
    const [, name, labelText, valueText] = sample!;
    const family = types.has(name!) ? name! : name!.replace(/_(bucket|sum|count)$/, '');
    expect(types.has(family), `sample ${name} before its TYPE`).toBe(true);
    const value = valueText === '+Inf' ? Infinity : Number(valueText);
    expect(Number.isNaN(value) && valueText !== 'NaN', `bad value in ${line}`).toBe(false);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (labelText ?? '').matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[key!] = raw!.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    }
    samples.push({ name: name!, labels, value });
  }
  return samples;
}

/** The value of one series, or undefined when it is not exposed. */
export function sampleValue(
  samples: ParsedSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}
