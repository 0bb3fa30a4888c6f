import { Button, Center, Text } from '@mantine/core';
import { MessageCard } from '../../components/MessageCard';

/** Spec §8: a render error shows the message and offers a retry. */
export function InternalError({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <MessageCard title="Internal Error">
      <Text ta="center" style={{ overflowWrap: 'anywhere' }}>
        {message}
      </Text>
      <Center>
        <Button onClick={onRetry}>Retry</Button>
      </Center>
    </MessageCard>
  );
}
