import { roleIssuesFromMessage, type RoleValidationIssue } from '@postern/contracts';
import { ApiError } from '../../api';

/** What a failed save tells the editor. */
export type SaveProblem =
  /** 400 with `line N: path: message` lines: shown in a list and at their lines. */
  | { kind: 'issues'; issues: RoleValidationIssue[]; other: string }
  /** 409 on PUT: someone saved the resource meanwhile; the user may reload the stored YAML. */
  | { kind: 'conflict'; message: string }
  | { kind: 'error'; message: string };

/** Sorts a save failure into issues at lines, an edit conflict, or a plain error. */
export function saveProblemOf(err: unknown, mode: 'create' | 'edit'): SaveProblem {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError && err.status === 409 && mode === 'edit') {
    return { kind: 'conflict', message };
  }
  if (err instanceof ApiError && err.status === 400) {
    const issues = roleIssuesFromMessage(message);
    if (issues.length > 0) {
      // Lines of the message that name no line (none today) are still shown.
      const other = message
        .split('\n')
        .filter((line) => roleIssuesFromMessage(line).length === 0)
        .join('\n')
        .trim();
      return { kind: 'issues', issues, other };
    }
  }
  return { kind: 'error', message };
}

/** One issue as the list and the line marks word it: `path: message`. */
export const issueText = (issue: RoleValidationIssue) =>
  issue.path ? `${issue.path}: ${issue.message}` : issue.message;
