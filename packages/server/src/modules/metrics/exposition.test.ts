import { describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, renderExposition } from './exposition.js';
import { parseExposition, sampleValue } from './exposition.testkit.js';

describe('the Prometheus text exposition', () => {
  it('writes HELP and TYPE, escapes label values and keeps histogram buckets cumulative', () => {
    const counter = new Counter('t_total', 'A count\nover two lines.', [{ result: 'a' }]);
    counter.inc({ result: 'b"\\' }, 2);
    counter.inc({ result: 'a' });
    const gauge = new Gauge('t_gauge', 'A gauge.', () => [{ labels: { kind: 'ssh' }, value: 3 }]);
    const histogram = new Histogram('t_seconds', 'A histogram.', [0.1, 1]);
    histogram.observe(0.05);
    histogram.observe(0.5);
    histogram.observe(5);
    const text = renderExposition([counter, gauge, histogram]);
    expect(text).toContain('# HELP t_total A count\\nover two lines.\n# TYPE t_total counter\n');
    const samples = parseExposition(text);
    expect(sampleValue(samples, 't_total', { result: 'a' })).toBe(1);
    expect(sampleValue(samples, 't_total', { result: 'b"\\' })).toBe(2);
    expect(sampleValue(samples, 't_gauge', { kind: 'ssh' })).toBe(3);
    expect(sampleValue(samples, 't_seconds_bucket', { le: '0.1' })).toBe(1);
    expect(sampleValue(samples, 't_seconds_bucket', { le: '1' })).toBe(2);
    expect(sampleValue(samples, 't_seconds_bucket', { le: '+Inf' })).toBe(3);
    expect(sampleValue(samples, 't_seconds_count')).toBe(3);
    expect(sampleValue(samples, 't_seconds_sum')).toBeCloseTo(5.55);
  });
});
