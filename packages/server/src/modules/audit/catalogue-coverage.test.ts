import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeAuditCode } from '@postern/contracts';
import { describe, expect, it } from 'vitest';

/**
 * Issue 6: every event the server can emit has a catalogue entry, so the console can render it.
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
/** Anything quoted that looks like an event code: T, area and number, severity letter. */
const codeLiteral = /['"`](T[0-9A-Z]{3,7}[IWE])['"`]/g;

describe('audit codes the server emits', () => {
  const emitted = new Set(
    sources.flatMap(({ text }) => [...text.matchAll(codeLiteral)].map((m) => m[1]!)),
  );

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
