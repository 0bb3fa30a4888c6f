import { Anchor, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { MessageCard } from '../../components/MessageCard';
import { routeTable } from '../routes';

export type LoginFailure = 'login' | 'callback' | 'unauthorized';

// What went wrong, in the words of each landing route (spec §2); the server's reason follows.
const leads: Record<LoginFailure, string> = {
  login: 'Sign-in could not be completed.',
  callback: 'The identity provider sent an answer this proxy could not accept.',
  unauthorized: 'You signed in at the identity provider, but you may not use this cluster.',
};

/**
 * Where SSO and login failures land. The server says why in the `reason` query parameter
 * (`details` on the legacy route), shown as plain text, never as markup.
 */
export function LoginFailed({ failure = 'login' }: { failure?: LoginFailure }) {
  const [search] = useSearchParams();
  const reason = search.get('reason') ?? search.get('details');
  return (
    <MessageCard title="Login Unsuccessful">
      <Text ta="center">{leads[failure]}</Text>
      {reason && (
        <Text ta="center" c="red" style={{ overflowWrap: 'anywhere' }}>
          {reason}
        </Text>
      )}
      <Text ta="center">
        <Anchor component={Link} to={routeTable.login.path}>
          Please attempt to log in again.
        </Anchor>
      </Text>
    </MessageCard>
  );
}
