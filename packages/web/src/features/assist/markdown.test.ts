import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './markdown';

describe('parseMarkdown', () => {
  it('reads paragraphs, fenced code with its language, and inline code', () => {
    const text =
      'First line\nsame paragraph with `ls -l`.\n\n```bash\nls -l\n\necho done\n```\nAfter.';
    expect(parseMarkdown(text)).toEqual([
      {
        kind: 'paragraph',
        spans: [
          { kind: 'text', text: 'First line\nsame paragraph with ' },
          { kind: 'code', text: 'ls -l' },
          { kind: 'text', text: '.' },
        ],
      },
      { kind: 'code', language: 'bash', code: 'ls -l\n\necho done' },
      { kind: 'paragraph', spans: [{ kind: 'text', text: 'After.' }] },
    ]);
  });

  it('runs an unclosed fence to the end, as an answer still being written', () => {
    expect(parseMarkdown('Try:\r\n```\ndf -h')).toEqual([
      { kind: 'paragraph', spans: [{ kind: 'text', text: 'Try:' }] },
      { kind: 'code', language: '', code: 'df -h' },
    ]);
  });

  it('leaves markup and lone backticks as the text they are', () => {
    expect(parseInline('<img src=x onerror=alert(1)> costs `1` ` tick')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> costs ' },
      { kind: 'code', text: '1' },
      { kind: 'text', text: ' ` tick' },
    ]);
    expect(parseMarkdown('')).toEqual([]);
  });
});
