import { Alert, Loader, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { routePath } from '../../app/routes';
import { ChoiceMenu } from '../../components/ChoiceMenu';
import type { Attempt } from '../../lib/attempt';
import { browserProtocols, protocolName, type Desktop } from './makeDesktop';
import { useDesktopActive } from './useDesktops';

/** The full-page session on a desktop as one login, in a browser tab of its own. */
export const desktopSessionPath = (clusterId: string, desktopName: string, username: string) =>
  routePath('desktopSession', { clusterId, desktopName, username });

interface MenuProps {
  desktop: Desktop;
  /** Where choosing a login goes. */
  sessionHref: (login: string) => string;
  /** Whether a session is live on the desktop; undefined until the menu has opened. */
  active: Attempt<boolean> | undefined;
  onOpenChange: (opened: boolean) => void;
}

/**
 * Connect: the logins the roles allow here, each opening the session page in a new tab. While
 * the menu is open it says whether a session is live on the desktop already: a warning, never a
 * block (the proxy decides what a second session does).
 */
export function ConnectDesktopMenu({ desktop, sessionHref, active, onOpenChange }: MenuProps) {
  if (!browserProtocols.includes(desktop.protocol)) {
    return (
      <ChoiceMenu
        label="Connect"
        ariaLabel={`Connect to ${desktop.name}`}
        choices={[]}
        disabledReason={`${protocolName(desktop.protocol)} desktops cannot be opened in the browser yet.`}
      />
    );
  }
  return (
    <ChoiceMenu
      label="Connect"
      ariaLabel={`Connect to ${desktop.name}`}
      heading="Log in as"
      choices={desktop.logins.map((login) => ({
        label: login,
        href: sessionHref(login),
        newTab: true,
      }))}
      // With no login there is nothing to open, and so nothing to check.
      disabledReason="Your roles allow no login on this desktop: ask an admin for one."
      note={desktop.logins.length > 0 && <ActiveNote active={active} />}
      onOpenChange={onOpenChange}
    />
  );
}

function ActiveNote({ active }: { active: Attempt<boolean> | undefined }) {
  if (!active) return null;
  switch (active.status) {
    case 'loading':
      return (
        <Group gap={6} wrap="nowrap" role="status">
          <Loader size={12} />
          <Text size="xs" c="dimmed">
            Checking for an active session…
          </Text>
        </Group>
      );
    case 'error':
      return (
        <Text size="xs" c="dimmed" role="status">
          Could not check for an active session: {active.message}
        </Text>
      );
    case 'success':
      return active.data ? (
        <Alert color="yellow" variant="light" p="xs" role="alert">
          <Text size="xs">A session on this desktop is active now. You can still connect.</Text>
        </Alert>
      ) : null;
  }
}

/** The Connect menu of one desktop row, asking whether it is in use each time it opens. */
export function ConnectDesktop({ clusterId, desktop }: { clusterId: string; desktop: Desktop }) {
  const [opened, setOpened] = useState(false);
  const active = useDesktopActive(clusterId, desktop.name, opened);
  return (
    <ConnectDesktopMenu
      desktop={desktop}
      sessionHref={(login) => desktopSessionPath(clusterId, desktop.name, login)}
      active={opened ? active : undefined}
      onOpenChange={setOpened}
    />
  );
}
