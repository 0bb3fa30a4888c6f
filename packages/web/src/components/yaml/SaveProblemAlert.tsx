import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import type { SaveProblem } from './saveProblem';
import { YamlIssuesAlert } from './YamlIssuesAlert';

interface Props {
  problem: SaveProblem | undefined;
  /** What is being saved, in lower case: 'role', 'connector'. */
  noun: string;
  onGoToLine: (line: number) => void;
  /** A conflict (409) offers to reload the saved version. */
  reload: { run: () => void; busy: boolean; error?: string };
}

/**
 * Why a YAML resource was not saved, under its editor: errors at their lines, a concurrent edit
 * (409) with a Reload, or any other refusal. The typed text is never thrown away here.
 */
export function SaveProblemAlert({ problem, noun, onGoToLine, reload }: Props) {
  if (!problem) return null;
  if (problem.kind === 'issues') {
    return (
      <YamlIssuesAlert
        title={`The ${noun} has errors`}
        listLabel={`${noun[0]!.toUpperCase()}${noun.slice(1)} errors`}
        issues={problem.issues}
        other={problem.other}
        onGoToLine={onGoToLine}
      />
    );
  }
  if (problem.kind === 'conflict') {
    return (
      <Alert color="orange" role="alert" title={`This ${noun} was changed by someone else`}>
        <Stack gap="xs">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {problem.message}
          </Text>
          <Text size="sm">
            Your text is still here. Reload replaces it with the saved version: copy what you want
            to keep first.
          </Text>
          {reload.error && (
            <Text size="sm" c="red">
              Could not reload: {reload.error}
            </Text>
          )}
          <Group>
            <Button size="xs" color="orange" loading={reload.busy} onClick={reload.run}>
              Reload
            </Button>
          </Group>
        </Stack>
      </Alert>
    );
  }
  return (
    <Alert color="red" role="alert" title={`Could not save the ${noun}`}>
      <Text size="sm" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
        {problem.message}
      </Text>
    </Alert>
  );
}
