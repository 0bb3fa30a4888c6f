import { Button, Code, CopyButton, Divider, Group, Popover, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { kubeLoginCommand, type KubeCluster } from './makeKubeCluster';

/**
 * Connect: the exact `postern kube login` command to copy and kubectl's first step after it; then
 * Exec in browser (`exec`, the picker, rendered only once the popover opens).
 */
export function ConnectKube({ cluster, exec }: { cluster: KubeCluster; exec: ReactNode }) {
  const command = kubeLoginCommand(cluster);
  return (
    <Popover position="bottom-end" withArrow shadow="md" trapFocus width={400}>
      <Popover.Target>
        <Button variant="default" size="compact-sm" aria-label={`Connect to ${cluster.name}`}>
          Connect
        </Button>
      </Popover.Target>
      <Popover.Dropdown aria-label={`Connect to ${cluster.name}`}>
        <Stack gap="xs">
          <Text size="sm">
            Run this with the Postern CLI (after <Code>postern login</Code>) to make the cluster
            kubectl&apos;s current context:
          </Text>
          <CopyableCommand command={command} label="Login command" />
          <Text size="sm">Then use kubectl as usual, for example:</Text>
          <Code block aria-label="Next step">
            kubectl get pods
          </Code>
          <Divider label="Exec in browser" labelPosition="left" my={4} />
          {exec}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

function CopyableCommand({ command, label }: { command: string; label: string }) {
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
