import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { ConnectorItem } from '@postern/contracts';
import { ConnectorKindIcon, connectorKindLabels } from '../../components/ConnectorKindIcon';

interface Props {
  connector: ConnectorItem;
  onEdit?: () => void;
  onDelete?: () => void;
}

/** One connector: its kind, name and display name, and the actions the ACL allows. */
export function ConnectorCard({ connector, onEdit, onDelete }: Props) {
  const { kind, name, displayName } = connector;
  const kindLabel = connectorKindLabels[kind];
  return (
    <Card withBorder padding="md" component="article" aria-label={`${kindLabel} connector ${name}`}>
      <Stack gap="sm" h="100%" justify="space-between">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <ConnectorKindIcon kind={kind} decorative />
          <Stack gap={2} style={{ minWidth: 0 }}>
            <Title order={3} size="h4" style={{ overflowWrap: 'anywhere' }}>
              {name}
            </Title>
            {displayName && (
              <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {displayName}
              </Text>
            )}
          </Stack>
          <Badge variant="light" ml="auto" style={{ flexShrink: 0 }}>
            {kindLabel}
          </Badge>
        </Group>
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
