import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { TrustedClusterItem, TrustedClusterState } from '@postern/contracts';

interface Props {
  trustedCluster: TrustedClusterItem;
  onEdit?: () => void;
  onDelete?: () => void;
}

export const stateBadges: Record<TrustedClusterState, { label: string; color: string }> = {
  connected: { label: 'Connected', color: 'green' },
  connecting: { label: 'Connecting', color: 'yellow' },
  disabled: { label: 'Disabled', color: 'gray' },
};

/**
 * One trusted cluster: the root it trusts (the resource is named after the root), how the link
 * stands, why the last attempt failed, and the actions the ACL allows.
 */
export function TrustedClusterCard({ trustedCluster, onEdit, onDelete }: Props) {
  const { name, status } = trustedCluster;
  const badge = status && stateBadges[status.state];
  return (
    <Card withBorder padding="md" component="article" aria-label={`Trusted cluster ${name}`}>
      <Stack gap="sm" h="100%" justify="space-between">
        <Stack gap={4}>
          <Group gap="sm" wrap="nowrap" align="flex-start">
            <Stack gap={2} style={{ minWidth: 0 }}>
              <Title order={3} size="h4" style={{ overflowWrap: 'anywhere' }}>
                {name}
              </Title>
              <Text size="sm" c="dimmed">
                Root cluster
              </Text>
            </Stack>
            {badge && (
              <Badge variant="light" color={badge.color} ml="auto" style={{ flexShrink: 0 }}>
                {badge.label}
              </Badge>
            )}
          </Group>
          {status?.error && (
            <Text size="sm" c="red" style={{ overflowWrap: 'anywhere' }}>
              {status.error}
            </Text>
          )}
        </Stack>
        {(onEdit || onDelete) && (
          <Group gap="xs" justify="flex-end">
            {onEdit && (
              <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit ${name}`}>
                Edit
              </Button>
            )}
            {onDelete && (
              <Button
                size="xs"
                variant="subtle"
                color="red"
                onClick={onDelete}
                aria-label={`Delete ${name}`}
              >
                Delete
              </Button>
            )}
          </Group>
        )}
      </Stack>
    </Card>
  );
}
