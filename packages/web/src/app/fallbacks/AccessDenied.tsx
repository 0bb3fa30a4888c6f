import { Text } from '@mantine/core';
import { MessageCard } from '../../components/MessageCard';

export function AccessDenied() {
  return (
    <MessageCard title="Access Denied">
      <Text ta="center">You do not have permission to view this page.</Text>
    </MessageCard>
  );
}
