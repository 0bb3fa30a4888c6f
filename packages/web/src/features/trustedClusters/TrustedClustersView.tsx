import { Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { TrustedClusterItem } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import type { Attempt } from '../../lib/attempt';
import { TrustedClusterCard } from './TrustedClusterCard';

export interface TrustedClusterPermissions {
  create: boolean;
  edit: boolean;
  remove: boolean;
}

interface Props {
  attempt: Attempt<TrustedClusterItem[]>;
  onRetry: () => void;
  can: TrustedClusterPermissions;
  onCreate: () => void;
  onEdit: (trustedCluster: TrustedClusterItem) => void;
  onDelete: (trustedCluster: TrustedClusterItem) => void;
}

export const connectLabel = 'Connect to Root Cluster';

/** Trusted Clusters: a card per root cluster this cluster trusts, with its link's state. */
export function TrustedClustersView({ attempt, onRetry, can, onCreate, onEdit, onDelete }: Props) {
  // The empty state carries its own button, so the header's would only repeat it.
  const empty = attempt.status === 'success' && attempt.data.length === 0;
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Trusted Clusters</Title>
        {can.create && !empty && <Button onClick={onCreate}>{connectLabel}</Button>}
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(trustedClusters) =>
          trustedClusters.length === 0 ? (
            <EmptyState canCreate={can.create} onCreate={onCreate} />
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {trustedClusters.map((trustedCluster) => (
                <TrustedClusterCard
                  key={trustedCluster.id}
                  trustedCluster={trustedCluster}
                  onEdit={can.edit ? () => onEdit(trustedCluster) : undefined}
                  onDelete={can.remove ? () => onDelete(trustedCluster) : undefined}
                />
              ))}
            </SimpleGrid>
          )
        }
      </AttemptView>
    </Stack>
  );
}

function EmptyState({ canCreate, onCreate }: { canCreate: boolean; onCreate: () => void }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm" maw={640}>
        <Title order={3} size="h4">
          No trusted clusters yet
        </Title>
        <Text size="sm">
          Connect this cluster to a root cluster so that the root&apos;s users can reach this
          cluster&apos;s resources through the root. This cluster keeps its own resources and roles:
          the root&apos;s roles are mapped onto this cluster&apos;s, and the root lists this cluster
          among its clusters.
        </Text>
        {canCreate ? (
          <Group>
            <Button variant="light" onClick={onCreate}>
              {connectLabel}
            </Button>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Your roles do not allow connecting to a root cluster; ask an administrator.
          </Text>
        )}
      </Stack>
    </Card>
  );
}
