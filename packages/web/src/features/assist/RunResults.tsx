import { Anchor, Badge, Code, Group, Paper, Stack, Text } from '@mantine/core';
import type { AssistCommandResult, AssistCommandSummary } from '@postern/contracts';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { Markdown } from './Markdown';

/** The session player of the recorded session a command ran as. */
export const recordingPath = (clusterId: string, sessionId: string) =>
  routePath('player', { clusterId, sid: sessionId }, { recordingType: 'ssh' });

interface ServerPanelProps {
  hostname: string;
  output: string;
  /** Absent while the server is still running the command. */
  result?: AssistCommandResult;
  /** The run is over: a server without a result will not get one. */
  ended?: boolean;
  clusterId: string;
}

/** One server's part of a run: its output, then how it ended and where its recording is. */
export function ServerPanel({ hostname, output, result, ended, clusterId }: ServerPanelProps) {
  return (
    <Paper withBorder p="xs" radius="sm" component="section" aria-label={`Output of ${hostname}`}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs">
          <Text size="sm" fw={600} ff="monospace">
            {hostname}
          </Text>
          <Outcome result={result} ended={ended} />
        </Group>
        {output && (
          <Code
            block
            style={{
              maxHeight: 320,
              overflow: 'auto',
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-all',
            }}
          >
            {output}
          </Code>
        )}
        {result?.truncated && (
          <Text size="xs" c="dimmed">
            Only the end of the output is kept here; the recording holds all of it.
          </Text>
        )}
        {result?.error && (
          <Text size="sm" c="red" style={{ overflowWrap: 'anywhere' }}>
            {result.error}
          </Text>
        )}
        {result?.session_id && (
          <Anchor
            size="sm"
            component={Link}
            to={recordingPath(clusterId, result.session_id)}
            target="_blank"
            aria-label={`Recording of ${hostname}`}
          >
            Recording
          </Anchor>
        )}
      </Stack>
    </Paper>
  );
}

function Outcome({ result, ended }: { result?: AssistCommandResult; ended?: boolean }) {
  if (!result) {
    return (
      <Badge variant="light" color="gray">
        {ended ? 'no result' : 'running'}
      </Badge>
    );
  }
  if (result.exit_code === undefined) {
    return (
      <Badge variant="light" color="red">
        did not finish
      </Badge>
    );
  }
  return (
    <Badge variant="light" color={result.exit_code === 0 ? 'green' : 'red'}>
      exit code {result.exit_code}
    </Badge>
  );
}

/** The model's reading of a run's results, as one of its answers. */
export function SummaryBlock({ summary }: { summary: AssistCommandSummary }) {
  return (
    <Paper withBorder p="sm" radius="md" component="article" aria-label="Summary">
      <Stack gap="xs">
        <Text size="xs" c="dimmed">
          Summary of <Code>{summary.command}</Code>
        </Text>
        <Markdown text={summary.summary} />
      </Stack>
    </Paper>
  );
}
