import { Button, Popover, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A resource row's Connect button and what it opens: how to reach `name` (the command to copy,
 * the choices that shape it, a way in from the browser). The dropdown is named after the button
 * so each row's stays apart, and focus stays inside it while open.
 */
export function ConnectPopover({
  name,
  width,
  children,
}: {
  name: string;
  width: number;
  children: ReactNode;
}) {
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus width={width}>
      <Popover.Target>
        <Button variant="default" size="compact-sm" aria-label={`Connect to ${name}`}>
          Connect
        </Button>
      </Popover.Target>
      <Popover.Dropdown aria-label={`Connect to ${name}`}>
        <Stack gap="xs">{children}</Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
