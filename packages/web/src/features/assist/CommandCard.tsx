import {
  Alert,
  Button,
  Checkbox,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Text,
  Textarea,
} from '@mantine/core';
import type { AssistCommand } from '@postern/contracts';
import { useState } from 'react';
import { isRunning, type RunRequest, type RunState } from './commandRun';
import { MessageBody } from './MessageBody';
import { ServerPanel } from './RunResults';

interface Props {
  command: AssistCommand;
  run: RunState;
  onRun: (request: RunRequest) => void;
  clusterId: string;
}

/**
 * A command the assistant proposes. Nothing runs until the user presses Run, with the command,
 * login and servers as they left them; then each server's output streams in below.
 */
export function CommandCard({ command, run, onRun, clusterId }: Props) {
  const [text, setText] = useState(command.command);
  const [login, setLogin] = useState<string | null>(command.login || null);
  const [checked, setChecked] = useState(() => new Set(command.nodes.map((node) => node.id)));
  // The proposed login stays a choice even when the list of logins leaves it out.
  const logins =
    command.logins.includes(command.login) || !command.login
      ? command.logins
      : [command.login, ...command.logins];
  const running = isRunning(run);
  const chosen = command.nodes.filter((node) => checked.has(node.id));
  const toggle = (id: string, on: boolean) =>
    setChecked((ids) => {
      const next = new Set(ids);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <Paper withBorder p="sm" radius="md" component="article" aria-label="Proposed command">
      <Stack gap="sm">
        <Text size="sm" fw={600}>
          The assistant proposes to run
        </Text>
        <Textarea
          label="Command"
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          autosize
          minRows={1}
          maxRows={8}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          disabled={running}
        />
        <Select
          label="Login"
          data={logins}
          value={login}
          onChange={setLogin}
          allowDeselect={false}
          disabled={running}
          w={240}
        />
        <Stack gap={4} role="group" aria-label="Servers">
          <Text size="sm" fw={500}>
            Servers
          </Text>
          {command.nodes.map((node) => (
            <Checkbox
              key={node.id}
              label={node.hostname}
              checked={checked.has(node.id)}
              onChange={(event) => toggle(node.id, event.currentTarget.checked)}
              disabled={running}
            />
          ))}
        </Stack>
        <Group>
          <Button
            onClick={() => login && onRun({ command: text, login, nodes: chosen })}
            disabled={running || chosen.length === 0 || !login || text.trim() === ''}
            loading={running}
          >
            {run.status === 'idle' ? 'Run' : 'Run again'}
          </Button>
          {run.status === 'connecting' && (
            <Group gap={6}>
              <Loader size="xs" />
              <Text size="sm" c="dimmed">
                Starting…
              </Text>
            </Group>
          )}
        </Group>
        {run.problem && (
          <Alert color="red" role="alert" title="The run failed">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {run.problem}
            </Text>
          </Alert>
        )}
        {run.servers.map((server) => (
          <ServerPanel
            key={server.id}
            hostname={server.hostname || server.id}
            output={server.output}
            result={server.result}
            ended={!running}
            clusterId={clusterId}
          />
        ))}
        {run.summary && <MessageBody message={run.summary} clusterId={clusterId} />}
      </Stack>
    </Paper>
  );
}
