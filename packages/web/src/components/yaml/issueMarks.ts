import type { RoleValidationIssue } from '@postern/contracts';
import { issueText } from './saveProblem';
import {
  RangeSet,
  StateEffect,
  StateField,
  type EditorState,
  type Extension,
  type Text,
} from '@codemirror/state';
import { Decoration, EditorView, gutter, GutterMarker, type DecorationSet } from '@codemirror/view';

/**
 * Server validation issues shown at their lines in a YAML editor: the line gets a tinted
 * background (`cm-issue-line`, its messages in `title`) and the gutter a marker
 * (`cm-issue-marker`). Marks follow the text as the user edits, and are replaced on each save.
 */
export const issueLineClass = 'cm-issue-line';
export const issueMarkerClass = 'cm-issue-marker';

/** Issues by line, each line clamped into the document (a stale issue never lands outside). */
export function issuesByLine(
  issues: readonly RoleValidationIssue[],
  lineCount: number,
): Map<number, RoleValidationIssue[]> {
  const byLine = new Map<number, RoleValidationIssue[]>();
  for (const issue of issues) {
    const line = Math.min(Math.max(issue.line, 1), Math.max(lineCount, 1));
    byLine.set(line, [...(byLine.get(line) ?? []), issue]);
  }
  return new Map([...byLine].sort(([a], [b]) => a - b));
}

class IssueMarker extends GutterMarker {
  constructor(readonly text: string) {
    super();
  }
  override eq(other: GutterMarker) {
    return other instanceof IssueMarker && other.text === this.text;
  }
  override toDOM() {
    const el = document.createElement('span');
    el.className = issueMarkerClass;
    el.textContent = '●';
    el.title = this.text;
    el.setAttribute('aria-label', `Error: ${this.text}`);
    return el;
  }
}

interface Marks {
  lines: DecorationSet;
  markers: RangeSet<GutterMarker>;
}

/** Replaces the marked issues (an empty list clears them). */
export const setIssues = StateEffect.define<readonly RoleValidationIssue[]>();

function marksFor(issues: readonly RoleValidationIssue[], doc: Text): Marks {
  const lines = [];
  const markers = [];
  for (const [number, onLine] of issuesByLine(issues, doc.lines)) {
    const text = onLine.map(issueText).join('\n');
    const { from } = doc.line(number);
    lines.push(Decoration.line({ class: issueLineClass, attributes: { title: text } }).range(from));
    markers.push(new IssueMarker(text).range(from));
  }
  return { lines: Decoration.set(lines), markers: RangeSet.of(markers) };
}

const issueMarks = StateField.define<Marks>({
  create: () => ({ lines: Decoration.none, markers: RangeSet.empty }),
  update(marks, tr) {
    let next = tr.docChanged
      ? { lines: marks.lines.map(tr.changes), markers: marks.markers.map(tr.changes) }
      : marks;
    for (const effect of tr.effects) {
      if (effect.is(setIssues)) next = marksFor(effect.value, tr.state.doc);
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field, (marks) => marks.lines),
});

/** The 1-based line numbers that carry an issue mark now. */
export function markedLines(state: EditorState): number[] {
  const numbers: number[] = [];
  const cursor = state.field(issueMarks).lines.iter();
  for (; cursor.value; cursor.next()) numbers.push(state.doc.lineAt(cursor.from).number);
  return numbers;
}

const issueTheme = EditorView.baseTheme({
  [`.${issueLineClass}`]: { backgroundColor: 'rgba(250, 82, 82, 0.14)' },
  '.cm-issue-gutter': { width: '1.1em' },
  [`.${issueMarkerClass}`]: { color: '#e03131', cursor: 'help', paddingLeft: '2px' },
});

export function issueMarksExtension(): Extension {
  return [
    issueMarks,
    gutter({
      class: 'cm-issue-gutter',
      markers: (view) => view.state.field(issueMarks).markers,
    }),
    issueTheme,
  ];
}
