import { describe, expect, it } from 'vitest';
import { LineEditor } from './line-editor.js';

function typeAll(editor: LineEditor, input: string) {
  const echoes: string[] = [];
  const actions: unknown[] = [];
  for (const key of editor.keys(input)) {
    const { echo, action } = editor.key(key);
    echoes.push(echo);
    if (action) actions.push(action);
  }
  return { echo: echoes.join(''), actions };
}

describe('the SQL console’s line editor', () => {
  it('runs a statement once a line ends it, continuing lines until then', () => {
    const editor = new LineEditor('app');
    expect(typeAll(editor, 'select 1\r').actions).toEqual([]);
    expect(editor.prompt).toBe('app-> ');
    expect(typeAll(editor, ' ;\r').actions).toEqual([{ type: 'statement', text: 'select 1\n ;' }]);
    expect(editor.prompt).toBe('app=> ');
  });

  it('erases with Backspace, cancels with Ctrl-C and quits with Ctrl-D', () => {
    const editor = new LineEditor('app');
    expect(typeAll(editor, 'selx\x7fect 2;\r').actions).toEqual([
      { type: 'statement', text: 'select 2;' },
    ]);
    expect(typeAll(editor, 'select\r\x03').actions).toEqual([{ type: 'cancel' }]);
    expect(editor.prompt).toBe('app=> ');
    expect(typeAll(editor, '\x04').actions).toEqual([{ type: 'quit' }]);
  });

  it('walks the history with Up and Down, and meta commands start with a backslash', () => {
    const editor = new LineEditor('app');
    typeAll(editor, 'select 1;\rselect 2;\r');
    const { echo } = typeAll(editor, '\x1b[A\x1b[A');
    expect(echo).toBe(`select 2${'\b \b'.repeat(9)}select 1;`.replace('select 2', 'select 2;'));
    expect(typeAll(editor, '\r').actions).toEqual([{ type: 'statement', text: 'select 1;' }]);
    expect(typeAll(editor, '\\dt\r').actions).toEqual([{ type: 'meta', command: '\\dt' }]);
  });

  it('keeps an escape sequence cut between two chunks whole, and ignores left and right', () => {
    const editor = new LineEditor('app');
    typeAll(editor, 'select 3;\r');
    expect(typeAll(editor, '\x1b').echo).toBe('');
    expect(typeAll(editor, '[A').echo).toBe('select 3;');
    expect(typeAll(editor, '\x1b[D\x1b[C').echo).toBe('');
  });

  it('treats a pasted CRLF as one Enter', () => {
    const editor = new LineEditor('app');
    expect(typeAll(editor, 'select 4;\r\nselect 5;\r\n').actions).toHaveLength(2);
  });
});
