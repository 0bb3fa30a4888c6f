import { Button, Text, Tooltip } from '@mantine/core';
import { ConnectPopover } from '../../components/connect/ConnectPopover';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { proxyAppCommand, type App } from './makeApp';

/**
 * HTTP apps open in a new tab through the launcher, a trusted leaf's too (this cluster serves
 * them on its own host names); TCP apps are reached with the CLI's tunnel (`--cluster` for a
 * leaf's).
 */
export function AppAction({ app, leaf }: { app: App; leaf?: string }) {
  if (app.isTcp) return <TunnelConnect app={app} leaf={leaf} />;
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
  return (
    <ConnectPopover name={app.name} width={360}>
      <Text size="sm">
        A TCP application is reached through a local tunnel. Run this with the Postern CLI, then
        connect to the local address it prints:
      </Text>
      <CopyableCommand command={proxyAppCommand(app, leaf)} label="Tunnel command" />
    </ConnectPopover>
  );
}
