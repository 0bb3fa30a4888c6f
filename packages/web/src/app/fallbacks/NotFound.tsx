import { Text } from '@mantine/core';
import { MessageCard } from '../../components/MessageCard';

export function NotFound() {
  return (
    <MessageCard title="404 Not Found">
      <Text ta="center">The requested path could not be found.</Text>
    </MessageCard>
  );
}
