import { Alert, Anchor, Group, Loader, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { MessageCard } from '../../components/MessageCard';
import { SessionMfaDialog } from '../../components/SessionMfaDialog';
import type { LaunchState } from './useAppLauncher';

interface Props {
  fqdn: string;
  state: LaunchState;
  /** The Applications page, for the way back after a failure. */
  appsHref: string;
}

/** The app launcher (spec §2 `/web/launch/...`, full page): a pure view. */
export function AppLauncherView({ fqdn, state, appsHref }: Props) {
  if (state.status === 'mfa') {
    return (
      <MessageCard title="Application Launcher">
        <Text ta="center" style={{ overflowWrap: 'anywhere' }}>
          {fqdn} needs a fresh two-factor check.
        </Text>
        <SessionMfaDialog challenge={state.challenge} reply={state.reply} />
      </MessageCard>
    );
  }
  if (state.status === 'launching') {
    return (
      <MessageCard title="Application Launcher">
        <Group justify="center" gap="sm" role="status" aria-live="polite">
          <Loader size="sm" />
          <Text style={{ overflowWrap: 'anywhere' }}>Launching {fqdn}…</Text>
        </Group>
      </MessageCard>
    );
  }
  return (
    <MessageCard title="Application Launcher">
      <Stack gap="md">
        <Alert color="red" title={`Could not launch ${fqdn}`} role="alert">
          {state.message}
        </Alert>
        <Text ta="center">
          <Anchor component={Link} to={appsHref}>
            Back to Applications
          </Anchor>
        </Text>
      </Stack>
    </MessageCard>
  );
}
