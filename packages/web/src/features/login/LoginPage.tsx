import { Text } from '@mantine/core';
import { MessageCard } from '../../components/MessageCard';

/**
 * Placeholder until web sign-in lands. It stays tiny on purpose: this chunk sets the login
 * route's bundle budget (bench/bundle-size.mjs).
 */
export function LoginPage() {
  return (
    <MessageCard title="Sign in">
      <Text ta="center">Sign-in is not available in this build yet.</Text>
    </MessageCard>
  );
}
