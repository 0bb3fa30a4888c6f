import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditTypeFamilies, describeAuditCode } from '@postern/contracts';
import { describe, expect, it } from 'vitest';

/**
 * Every event the server can emit has a catalogue entry, so the console can render it.
 * `emitAudit` takes a typed code, but direct `audit.emit({ event, code })` calls and codes chosen
 * at run time (`ok ? 'T3002I' : 'T3002E'`) escape the type check, so we read the sources.
 */
const serverSrc = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    const isSource = /\.ts$/.test(entry.name) && !/\.(test|testkit)\.ts$/.test(entry.name);
    return isSource && !path.includes(`${join('src', 'testing')}`) ? [path] : [];
  });
}

const sources = sourceFiles(serverSrc).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
/**
 * Anything quoted that looks like an event code: T, area and number, severity letter. Every code
 * has a digit before its severity, which keeps words like 'TRACE' (a log level) out.
 */
const codeLiteral = /['"`](T[0-9A-Z]{2,6}[0-9][IWE])['"`]/g;

const emitted = new Set(
  sources.flatMap(({ text }) => [...text.matchAll(codeLiteral)].map((m) => m[1]!)),
);

describe('audit codes the server emits', () => {
  it('finds the emitting call sites (the scan itself works)', () => {
    for (const code of ['T1000I', 'T2000I', 'T3002E', 'TPOS001I', 'TLK00I']) {
      expect(emitted).toContain(code);
    }
  });

  it('has a catalogue entry for every one of them', () => {
    expect([...emitted].filter((code) => !describeAuditCode(code)).sort()).toEqual([]);
  });

  it('gives direct audit.emit calls the event type their code has in the catalogue', () => {
    const directEmit = /\.emit\(\{\s*event:\s*'([^']+)',\s*code:\s*'([^']+)'/g;
    const calls = sources.flatMap(({ text }) => [...text.matchAll(directEmit)]);
    expect(calls.length).toBeGreaterThan(0);
    for (const [, type, code] of calls) expect(describeAuditCode(code!)?.type, code).toBe(type);
  });
});

/**
 * The Audit Log's type filter offers exactly the event types Postern emits. The list in
 * the contracts is written by hand (with names and families); these fail when it and the server
 * drift apart, in either direction.
 */
describe('the type filter of the Audit Log', () => {
  const emittedTypes = new Set([...emitted].map((code) => describeAuditCode(code)?.type));
  const listed = auditTypeFamilies.flatMap((family) => family.types.map((choice) => choice.type));

  it('lists every event type the server emits', () => {
    expect([...emittedTypes].filter((type) => !listed.includes(type!)).sort()).toEqual([]);
  });

  it('lists no event type the server never emits', () => {
    expect(listed.filter((type) => !emittedTypes.has(type))).toEqual([]);
  });

  it('lists each type once, under a named family, with a name of its own', () => {
    expect(new Set(listed).size).toBe(listed.length);
    for (const { family, types } of auditTypeFamilies) {
      expect(family).not.toBe('');
      expect(types.length, family).toBeGreaterThan(0);
      for (const { type, label } of types) expect(label, type).toMatch(/^[A-Z]/);
    }
    const labels = auditTypeFamilies.flatMap((f) => f.types.map((t) => t.label));
    expect(new Set(labels).size).toBe(labels.length);
  });
});
