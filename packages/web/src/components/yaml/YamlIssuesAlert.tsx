import { Alert, Anchor, List, Text } from '@mantine/core';
import type { RoleValidationIssue } from '@postern/contracts';
import { issueText } from './saveProblem';

interface Props {
  /** e.g. 'The role has errors'. */
  title: string;
  /** The list's accessible name, e.g. 'Role errors'. */
  listLabel: string;
  issues: readonly RoleValidationIssue[];
  /** Lines of the server's message that name no line: still worth showing. */
  other: string;
  onGoToLine: (line: number) => void;
}

/** The server's validation issues as a list; each "line N" moves the editor's cursor there. */
export function YamlIssuesAlert({ title, listLabel, issues, other, onGoToLine }: Props) {
  return (
    <Alert color="red" role="alert" title={title}>
      {other && (
        <Text size="sm" style={{ whiteSpace: 'pre-line' }}>
          {other}
        </Text>
      )}
      <List size="sm" spacing={4} aria-label={listLabel}>
        {issues.map((issue, i) => (
          <List.Item key={i}>
            <Anchor component="button" size="sm" onClick={() => onGoToLine(issue.line)}>
              line {issue.line}
            </Anchor>
            : {issueText(issue)}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
