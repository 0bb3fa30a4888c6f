import { roleIssuesFromMessage } from '@postern/contracts';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api';
import { issueMarksExtension, issuesByLine, markedLines, setIssues } from './issueMarks';
import { saveProblemOf } from './saveProblem';

/** A 400 from `POST /roles`, as the server words it (one issue per line). */
const serverMessage = [
  "line 9: spec.allow.loginz: unknown field 'spec.allow.loginz'; did you mean 'logins'?",
  "line 15: spec.allow.rules[0].verbs[1]: expected one of '*', 'list', 'read', got 'fly'",
  'line 15: spec.allow.rules[0].verbs[2]: duplicate',
].join('\n');

const apiError = (status: number, message: string) =>
  new ApiError(message, new Response(null, { status }));

describe('role validation errors → editor lines', () => {
  it('reads each issue with its line, path and message', () => {
    expect(roleIssuesFromMessage(serverMessage)).toEqual([
      {
        line: 9,
        path: 'spec.allow.loginz',
        message: "unknown field 'spec.allow.loginz'; did you mean 'logins'?",
      },
      {
        line: 15,
        path: 'spec.allow.rules[0].verbs[1]',
        message: "expected one of '*', 'list', 'read', got 'fly'",
      },
      { line: 15, path: 'spec.allow.rules[0].verbs[2]', message: 'duplicate' },
    ]);
  });

  it('groups issues by line, in order, clamped into the document', () => {
    const issues = roleIssuesFromMessage(`${serverMessage}\nline 99: spec: past the end`);
    const byLine = issuesByLine(issues, 20);
    expect([...byLine.keys()]).toEqual([9, 15, 20]);
    expect(byLine.get(15)).toHaveLength(2);
    expect(byLine.get(20)?.[0]?.message).toBe('past the end');
  });

  it('marks exactly those lines, and the marks follow edits above them', () => {
    const doc = Array.from({ length: 16 }, (_, i) => `line${i + 1}: x`).join('\n');
    let state = EditorState.create({ doc, extensions: issueMarksExtension() });
    state = state.update({ effects: setIssues.of(roleIssuesFromMessage(serverMessage)) }).state;
    expect(markedLines(state)).toEqual([9, 15]);
    // Two lines typed at the top: the marks move with their lines.
    state = state.update({ changes: { from: 0, insert: 'a: 1\nb: 2\n' } }).state;
    expect(markedLines(state)).toEqual([11, 17]);
    state = state.update({ effects: setIssues.of([]) }).state;
    expect(markedLines(state)).toEqual([]);
  });

  it('sorts save failures: issues (400), edit conflict (409 on edit), other errors', () => {
    const issues = saveProblemOf(apiError(400, serverMessage), 'edit');
    expect(issues).toMatchObject({ kind: 'issues', other: '' });
    expect(issues.kind === 'issues' && issues.issues.map((i) => i.line)).toEqual([9, 15, 15]);
    expect(saveProblemOf(apiError(409, 'the role was changed'), 'edit')).toEqual({
      kind: 'conflict',
      message: 'the role was changed',
    });
    // On create a 409 means the name is taken: nothing to reload.
    expect(saveProblemOf(apiError(409, 'role dev already exists'), 'create')).toEqual({
      kind: 'error',
      message: 'role dev already exists',
    });
    expect(saveProblemOf(apiError(400, 'dev is a preset role'), 'edit')).toEqual({
      kind: 'error',
      message: 'dev is a preset role',
    });
    expect(saveProblemOf(new Error('Network request failed'), 'create').kind).toBe('error');
  });
});
