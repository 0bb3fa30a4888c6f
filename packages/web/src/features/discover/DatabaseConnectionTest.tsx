import { Button, Group, List, Stack, Text, TextInput, ThemeIcon } from '@mantine/core';
import type { ConnectionDiagnostic } from '@postern/contracts';
import { IconCheck, IconX } from '@tabler/icons-react';
import { useState } from 'react';
import { FailureAlert } from '../../components/FailureAlert';

interface Props {
  /** Runs the proxy's connection test as the user, for this database user and name. */
  onTest: (login: { dbUser: string; dbName: string }) => Promise<ConnectionDiagnostic>;
}

/**
 * The last step for a database: the proxy tries the way in as the user would take it and says,
 * step by step, what worked (spec §3 Connection diagnostic).
 */
export function DatabaseConnectionTest({ onTest }: Props) {
  const [dbUser, setDbUser] = useState('');
  const [dbName, setDbName] = useState('');
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<ConnectionDiagnostic>();
  const [failure, setFailure] = useState<string>();
  const run = async () => {
    setRunning(true);
    setFailure(undefined);
    setResult(undefined);
    try {
      setResult(await onTest({ dbUser: dbUser.trim(), dbName: dbName.trim() }));
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setRunning(false);
    }
  };
  return (
    <Stack gap="xs" component="section" aria-label="Connection test">
      <Text size="sm" fw={600}>
        Test the connection
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label="Database user"
            required
            value={dbUser}
            onChange={(event) => setDbUser(event.currentTarget.value)}
          />
          <TextInput
            label="Database name"
            placeholder="the user's name when empty"
            value={dbName}
            onChange={(event) => setDbName(event.currentTarget.value)}
          />
          <Button type="submit" variant="light" loading={running} disabled={dbUser.trim() === ''}>
            Test connection
          </Button>
        </Group>
      </form>
      {failure !== undefined && <FailureAlert title="The test did not run" message={failure} />}
      {result && <TraceList result={result} />}
    </Stack>
  );
}

function TraceList({ result }: { result: ConnectionDiagnostic }) {
  return (
    <Stack gap={4} role="status">
      <Text size="sm" c={result.success ? 'teal' : 'red'}>
        {result.success ? 'The connection works.' : `The connection failed: ${result.message}`}
      </Text>
      <List spacing={4} size="sm" aria-label="Connection test steps" center>
        {result.traces.map((trace, index) => (
          <List.Item
            key={`${trace.trace_type}-${index}`}
            icon={
              <ThemeIcon size={18} radius="xl" color={trace.status === 'success' ? 'teal' : 'red'}>
                {trace.status === 'success' ? <IconCheck size={12} /> : <IconX size={12} />}
              </ThemeIcon>
            }
          >
            {trace.details}
            {trace.error !== '' && (
              <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
                {trace.error}
              </Text>
            )}
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
