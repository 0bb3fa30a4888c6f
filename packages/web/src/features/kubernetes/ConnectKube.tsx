import { Code, Divider, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ConnectPopover } from '../../components/connect/ConnectPopover';
import { CopyableCommand } from '../../components/connect/CopyableCommand';
import { kubeLoginCommand, type KubeCluster } from './makeKubeCluster';

/**
 * Connect: the exact `postern kube login` command to copy and kubectl's first step after it; then
 * Exec in browser (`exec`, the picker, rendered only once the popover opens).
 */
export function ConnectKube({
  cluster,
  exec,
  leaf,
}: {
  cluster: KubeCluster;
  exec: ReactNode;
  /** A trusted leaf's cluster (the cluster picked is not the one signed in to). */
  leaf?: string;
}) {
  return (
    <ConnectPopover name={cluster.name} width={400}>
      <Text size="sm">
        Run this with the Postern CLI (after <Code>postern login</Code>) to make the cluster
        kubectl&apos;s current context:
      </Text>
      <CopyableCommand command={kubeLoginCommand(cluster, leaf)} label="Login command" />
      <Text size="sm">Then use kubectl as usual, for example:</Text>
      <Code block aria-label="Next step">
        kubectl get pods
      </Code>
      <Divider label="Exec in browser" labelPosition="left" my={4} />
      {exec}
    </ConnectPopover>
  );
}
