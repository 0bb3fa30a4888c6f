import { Text } from '@mantine/core';
import { MessageCard } from '../../components/MessageCard';

/** Where a browser sign-in started by a terminal client ends. */
export function LoginSuccess() {
  return (
    <MessageCard title="Success">
      <Text ta="center">
        You have signed in. You may close this tab and return to the terminal.
      </Text>
    </MessageCard>
  );
}
