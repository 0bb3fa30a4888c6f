import { Button, Code, CopyButton, Group } from '@mantine/core';

/**
 * A command to run (or a secret to paste), shown as it must be typed and copied with one click;
 * `label` names the code for assistive technology and tests ("Connect command", "Join token"),
 * `copyLabel` its button ("Copy command" unless told).
 */
export function CopyableCommand({
  command,
  label,
  copyLabel = 'Copy command',
}: {
  command: string;
  label: string;
  copyLabel?: string;
}) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Code style={{ flex: 1, overflowWrap: 'anywhere' }} aria-label={label}>
        {command}
      </Code>
      <CopyButton value={command}>
        {({ copied, copy }) => (
          <Button
            size="compact-sm"
            variant={copied ? 'light' : 'filled'}
            color={copied ? 'teal' : undefined}
            onClick={copy}
            aria-label={copied ? 'Copied' : copyLabel}
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
