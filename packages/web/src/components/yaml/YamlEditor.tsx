import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import type { RoleValidationIssue } from '@postern/contracts';
import { EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { issueMarksExtension, setIssues } from './issueMarks';

export interface YamlEditorHandle {
  /** Moves the cursor to a 1-based line, scrolls it into view and focuses the editor. */
  goToLine(line: number): void;
}

export interface YamlEditorProps {
  /** The text at mount. The editor owns the text afterwards; remount (key) to replace it. */
  initialValue: string;
  onChange: (text: string) => void;
  /** Marked at their lines; a new array replaces the marks. */
  issues: readonly RoleValidationIssue[];
  label: string;
  ref?: Ref<YamlEditorHandle>;
}

const editorTheme = EditorView.theme({
  '&': {
    height: '100%',
    fontSize: '13px',
    border: '1px solid var(--mantine-color-default-border)',
  },
  '.cm-scroller': { fontFamily: 'var(--mantine-font-family-monospace)', overflow: 'auto' },
  '&.cm-focused': { outline: '2px solid var(--mantine-primary-color-filled)' },
});

/**
 * CodeMirror 6 with YAML highlighting, line numbers and the issue marks. Lives in its own lazy
 * chunk: only the YAML editors (Roles, Auth Connectors) load it.
 */
export default function YamlEditor({
  initialValue,
  onChange,
  issues,
  label,
  ref,
}: YamlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: initialValue,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
          yaml(),
          EditorState.tabSize.of(2),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          issueMarksExtension(),
          editorTheme,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor owns its text once mounted; a new initial text comes with a new key.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: setIssues.of(issues) });
  }, [issues]);

  useImperativeHandle(
    ref,
    () => ({
      goToLine(line) {
        const editor = view.current;
        if (!editor) return;
        const { doc } = editor.state;
        const { from } = doc.line(Math.min(Math.max(line, 1), doc.lines));
        editor.dispatch({ selection: { anchor: from }, scrollIntoView: true });
        editor.focus();
      },
    }),
    [],
  );

  return <div ref={host} data-testid="yaml-editor" style={{ height: '100%', minHeight: 200 }} />;
}
