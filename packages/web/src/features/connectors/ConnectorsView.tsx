import { Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { connectorKinds, type ConnectorItem, type ConnectorKind } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { ChoiceMenu } from '../../components/ChoiceMenu';
import { connectorKindLabels } from '../../components/ConnectorKindIcon';
import type { Attempt } from '../../lib/attempt';
import { ConnectorCard } from './ConnectorCard';

export interface ConnectorPermissions {
  create: boolean;
  edit: boolean;
  remove: boolean;
}

interface Props {
  attempt: Attempt<ConnectorItem[]>;
  onRetry: () => void;
  can: ConnectorPermissions;
  onCreate: (kind: ConnectorKind) => void;
  onEdit: (connector: ConnectorItem) => void;
  onDelete: (connector: ConnectorItem) => void;
}

/** Manage Auth Connectors: a card per OIDC, SAML and GitHub connector. */
export function ConnectorsView({ attempt, onRetry, can, onCreate, onEdit, onDelete }: Props) {
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Manage Auth Connectors</Title>
        {can.create && (
          <ChoiceMenu
            label="New connector"
            ariaLabel="New connector"
            heading="Sign in with"
            choices={connectorKinds.map((kind) => ({
              label: connectorKindLabels[kind],
              onSelect: () => onCreate(kind),
            }))}
            size="sm"
          />
        )}
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(connectors) =>
          connectors.length === 0 ? (
            <EmptyState canCreate={can.create} onCreate={onCreate} />
          ) : (
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
              {connectors.map((connector) => (
                <ConnectorCard
                  key={connector.id}
                  connector={connector}
                  onEdit={can.edit ? () => onEdit(connector) : undefined}
                  onDelete={can.remove ? () => onDelete(connector) : undefined}
                />
              ))}
            </SimpleGrid>
          )
        }
      </AttemptView>
    </Stack>
  );
}

function EmptyState({
  canCreate,
  onCreate,
}: {
  canCreate: boolean;
  onCreate: (kind: ConnectorKind) => void;
}) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm" maw={640}>
        <Title order={3} size="h4">
          No auth connectors yet
        </Title>
        <Text size="sm">
          An auth connector lets people sign in with an identity provider you already run (single
          sign-on) instead of a Postern password. OIDC fits Google, Okta, Keycloak or Entra ID; SAML
          fits most enterprise identity providers; GitHub signs people in with their GitHub account.
          The provider&apos;s groups, attributes or teams decide which roles they get.
        </Text>
        {canCreate ? (
          <Group gap="xs">
            {connectorKinds.map((kind) => (
              <Button key={kind} variant="light" onClick={() => onCreate(kind)}>
                Add {kindArticle(kind)} {connectorKindLabels[kind]} connector
              </Button>
            ))}
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            Your roles do not allow creating connectors; ask an administrator.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

// "an OIDC", "a SAML", "a GitHub": the article follows how the letters are spoken.
const kindArticle = (kind: ConnectorKind) => (kind === 'oidc' ? 'an' : 'a');
