/**
 * The little Markdown the assistant's answers use, read into blocks the view renders as React
 * elements (never as HTML): paragraphs, fenced code blocks and inline code. Anything else stays
 * the text it is.
 */
export type InlineSpan = { kind: 'text' | 'code'; text: string };

export type MarkdownBlock =
  { kind: 'paragraph'; spans: InlineSpan[] } | { kind: 'code'; language: string; code: string };

const fence = /^\s*```/;

export function parseMarkdown(text: string): MarkdownBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0)
      blocks.push({ kind: 'paragraph', spans: parseInline(paragraph.join('\n')) });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (fence.test(line)) {
      endParagraph();
      const language = line.replace(fence, '').trim();
      const code: string[] = [];
      // An unclosed fence runs to the end, as the answer may still be being written.
      for (i++; i < lines.length && !fence.test(lines[i] ?? ''); i++) code.push(lines[i] ?? '');
      blocks.push({ kind: 'code', language, code: code.join('\n') });
    } else if (line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line);
    }
  }
  endParagraph();
  return blocks;
}

/** Text with `code` spans; a lone backtick is just a backtick. */
export function parseInline(text: string): InlineSpan[] {
  const spans: InlineSpan[] = [];
  let last = 0;
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    if (match.index > last) spans.push({ kind: 'text', text: text.slice(last, match.index) });
    spans.push({ kind: 'code', text: match[1] ?? '' });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ kind: 'text', text: text.slice(last) });
  return spans;
}
