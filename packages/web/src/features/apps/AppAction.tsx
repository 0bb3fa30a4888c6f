import { Button, Text, Tooltip } from '@mantine/core';
import { ConnectPopover } from '../../components/connect/ConnectPopover';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { proxyAppCommand, type App } from './makeApp';

/**
 * HTTP apps open in a new tab through the launcher; TCP apps, and a trusted leaf's apps (`leaf`:
 * this cluster does not route their host names), are reached with the CLI's tunnel.
 */
export function AppAction({ app, leaf }: { app: App; leaf?: string }) {
  if (app.isTcp || leaf) return <TunnelConnect app={app} leaf={leaf} />;
  if (!app.launchUrl) {
    const reason = 'This application has no address to launch it at.';
    // A disabled button gets no pointer events; data-disabled keeps the tooltip working.
    return (
      <Tooltip label={reason} withinPortal={false}>
        <Button
          variant="default"
          size="compact-sm"
          data-disabled
          aria-disabled="true"
          aria-label={`Launch ${app.name}`}
          aria-description={reason}
          onClick={(e) => e.preventDefault()}
        >
          Launch
        </Button>
      </Tooltip>
    );
  }
  return (
    <Button
      component="a"
      href={app.launchUrl}
      target="_blank"
      rel="noopener noreferrer"
      variant="default"
      size="compact-sm"
      aria-label={`Launch ${app.name}`}
    >
      Launch
    </Button>
  );
}

/** Connect through a local tunnel: the command that opens it, ready to copy. */
function TunnelConnect({ app, leaf }: { app: App; leaf?: string }) {
  const what = app.isTcp
    ? 'A TCP application is reached through a local tunnel.'
    : `An application of the trusted cluster ${leaf ?? ''} is reached through a local tunnel (plain HTTP).`;
  return (
    <ConnectPopover name={app.name} width={360}>
      <Text size="sm">
        {what} Run this with the Postern CLI, then connect to the local address it prints:
      </Text>
      <CopyableCommand command={proxyAppCommand(app, leaf)} label="Tunnel command" />
    </ConnectPopover>
  );
}
