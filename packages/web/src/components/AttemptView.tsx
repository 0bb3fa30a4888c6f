import { Alert, Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Attempt } from '../lib/attempt';
import { PageLoader } from './PageLoader';

interface Props<T> {
  attempt: Attempt<T>;
  onRetry: () => void;
  children: (data: T) => ReactNode;
}

/** Loading, error-with-retry, or the content: the three states every data view shares. */
export function AttemptView<T>({ attempt, onRetry, children }: Props<T>) {
  if (attempt.status === 'loading') return <PageLoader />;
  if (attempt.status === 'error') {
    return (
      <Alert color="red" title="Could not load this page" role="alert">
        <Group justify="space-between" wrap="nowrap" align="center">
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {attempt.message}
          </Text>
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Retry
          </Button>
        </Group>
      </Alert>
    );
  }
  return children(attempt.data);
}
