import { describe, expect, it, vi } from 'vitest';
import { csvCell, exportRange, toCsv, toJsonLines } from './exportAudit';
import { auditEventFixtures } from './fixtures';

/** jsdom's Blob has no text(); FileReader reads it. */
function readBlob(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

describe('export', () => {
  it('writes one raw event per JSON line', () => {
    const events = auditEventFixtures(2);
    const lines = toJsonLines(events).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(events);
  });

  it('quotes CSV cells with commas, quotes and line breaks', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    const csv = toCsv([
      { event: 'user.login', code: 'T1000W', time: 't', user: 'e,ve', error: 'x' },
    ]);
    expect(csv).toBe(
      'time,code,type,severity,codeDesc,user,message\r\n' +
        't,T1000W,user.login,warning,Local Login Failed,"e,ve","Local user [e,ve] login failure [x]"\r\n',
    );
  });

  it('fetches every page of the range, with one CSV header', async () => {
    const fetchPage = vi.fn(async (startKey: string) =>
      startKey === ''
        ? { events: auditEventFixtures(2), startKey: 'k2' }
        : { events: auditEventFixtures(1, 2), startKey: '' },
    );
    const csv = await readBlob(await exportRange(fetchPage, 'csv'));
    expect(fetchPage.mock.calls.map(([key]) => key)).toEqual(['', 'k2']);
    expect(csv.trimEnd().split('\r\n')).toHaveLength(4);
    expect(csv.match(/^time,/gm)).toHaveLength(1);
    const jsonl = await readBlob(await exportRange(fetchPage, 'jsonl'));
    expect(jsonl.trimEnd().split('\n')).toHaveLength(3);
  });
});
