import { Anchor, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { MessageCard } from '../../components/MessageCard';
import { routeTable } from '../routes';

/** The page SSO and login failures land on; `details` is shown as plain text, never as markup. */
export function LoginFailed() {
  const [search] = useSearchParams();
  const details = search.get('details');
  return (
    <MessageCard title="Login Unsuccessful">
      {details && (
        <Text ta="center" c="red" style={{ overflowWrap: 'anywhere' }}>
          {details}
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
