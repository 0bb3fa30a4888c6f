import { EditorView } from '@codemirror/view';
import { render } from '@testing-library/react';
import { createRef } from 'react';
import { describe, expect, it, vi } from 'vitest';
import YamlEditor, { type YamlEditorHandle } from './YamlEditor';

const yamlText = 'kind: role\nversion: v7\nmetadata:\n  name: dev\n';

function editorView(container: HTMLElement): EditorView {
  const view = EditorView.findFromDOM(container.querySelector('.cm-editor') as HTMLElement);
  if (!view) throw new Error('no editor');
  return view;
}

describe('YamlEditor', () => {
  it('is a labelled YAML text box with line numbers and highlighting', () => {
    const { container, getByRole } = render(
      <YamlEditor initialValue={yamlText} onChange={vi.fn()} issues={[]} label="Role YAML" />,
    );
    const box = getByRole('textbox', { name: 'Role YAML' });
    expect(box.getAttribute('data-language')).toBe('yaml');
    const numbers = [...container.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
      .map((e) => e.textContent)
      .filter((t) => t !== '9');
    expect(numbers).toEqual(['1', '2', '3', '4', '5']);
    // Keys are highlighted: the YAML parser tagged them.
    expect(box.querySelector('.cm-line span')?.textContent).toBe('kind');
  });

  it('marks issue lines in the text and the gutter, and clears them', () => {
    const props = { initialValue: yamlText, onChange: vi.fn(), label: 'Role YAML' };
    const { container, rerender } = render(<YamlEditor {...props} issues={[]} />);
    expect(container.querySelectorAll('.cm-issue-line')).toHaveLength(0);
    rerender(
      <YamlEditor
        {...props}
        issues={[
          { line: 2, path: 'version', message: "expected one of 'v5', 'v6', 'v7'" },
          { line: 4, path: 'metadata.name', message: 'is taken' },
        ]}
      />,
    );
    const lines = [...container.querySelectorAll('.cm-issue-line')];
    expect(lines.map((l) => l.textContent)).toEqual(['version: v7', '  name: dev']);
    expect(lines[0]?.getAttribute('title')).toBe("version: expected one of 'v5', 'v6', 'v7'");
    const markers = [...container.querySelectorAll('.cm-issue-marker')];
    expect(markers.map((m) => m.getAttribute('aria-label'))).toEqual([
      "Error: version: expected one of 'v5', 'v6', 'v7'",
      'Error: metadata.name: is taken',
    ]);
    rerender(<YamlEditor {...props} issues={[]} />);
    expect(container.querySelectorAll('.cm-issue-line')).toHaveLength(0);
  });

  it('reports edits and moves to a line on request', () => {
    const onChange = vi.fn();
    const ref = createRef<YamlEditorHandle>();
    const { container } = render(
      <YamlEditor
        ref={ref}
        initialValue={yamlText}
        onChange={onChange}
        issues={[]}
        label="Role YAML"
      />,
    );
    const view = editorView(container);
    view.dispatch({ changes: { from: 0, insert: '# mine\n' } });
    expect(onChange).toHaveBeenLastCalledWith(`# mine\n${yamlText}`);
    ref.current?.goToLine(3);
    expect(view.state.doc.lineAt(view.state.selection.main.head).number).toBe(3);
  });
});
