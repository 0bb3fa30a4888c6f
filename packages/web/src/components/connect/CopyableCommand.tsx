import { Button, Code, CopyButton, Group } from '@mantine/core';

/**
 * A command to run, shown as it must be typed and copied with one click; `label` names the code
 * for assistive technology and tests ("Connect command", "Login command").
 */
export function CopyableCommand({ command, label }: { command: string; label: string }) {
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
            aria-label={copied ? 'Copied' : 'Copy command'}
          >
            {copied ? 'Copied' : 'Copy'}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}
