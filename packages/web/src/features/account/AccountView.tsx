import { Alert, Anchor, Divider, Group, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { routeTable } from '../../app/routes';

export type AccountSection = 'all' | 'password' | 'twofactor';

interface Props {
  section: AccountSection;
  /** A confirmation of the last change (device added or removed). */
  notice?: string;
  onDismissNotice?: () => void;
  /** Who the user is (shown on the whole page only). */
  profile: ReactNode;
  password: ReactNode;
  devices: ReactNode;
}

/**
 * Account Settings (spec §2): `/web/account` shows everything (who the user is, then the
 * password and the devices), `/web/account/password` and `/web/account/twofactor` one part each.
 */
export function AccountView({
  section,
  notice,
  onDismissNotice,
  profile,
  password,
  devices,
}: Props) {
  return (
    <Stack gap="lg">
      <Title order={2}>Account Settings</Title>
      <Group gap="md" component="nav" aria-label="Account settings">
        <Anchor component={Link} to={routeTable.accountPassword.path}>
          Password
        </Anchor>
        <Anchor component={Link} to={routeTable.accountMfaDevices.path}>
          Two-factor devices
        </Anchor>
      </Group>
      {notice && (
        <Alert color="green" role="status" withCloseButton onClose={onDismissNotice}>
          {notice}
        </Alert>
      )}
      {section === 'all' && (
        <>
          {profile}
          <Divider />
        </>
      )}
      {section !== 'twofactor' && password}
      {section === 'all' && <Divider />}
      {section !== 'password' && devices}
    </Stack>
  );
}
