import { Alert, Button, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import {
  integrationTitles,
  integrationTypes,
  type IntegrationInput,
  type IntegrationType,
} from '@postern/contracts';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { IntegrationForm } from './IntegrationForm';
import { emptyIntegrationForm } from './integrationForm';

const descriptions: Record<IntegrationType, string> = {
  webhook: 'A signed HTTP POST to any URL for each request and decision.',
  slack: 'A message in a Slack channel through an incoming webhook.',
  mattermost: 'A message in a Mattermost channel through an incoming webhook.',
  email: 'An e-mail to the suggested reviewers through your SMTP server.',
};

const isType = (value: string | undefined): value is IntegrationType =>
  (integrationTypes as readonly (string | undefined)[]).includes(value);

interface Props {
  /** The type in the URL; none shows the tiles. */
  type?: string;
  onSubmit: (input: IntegrationInput) => Promise<void>;
  /** Whether saving can work: enrolling plugins alone does not create integrations. */
  canCreate: boolean;
}

/** Enroll New Integration: one tile per type, then the chosen type's settings. */
export function EnrollIntegrationView({ type, onSubmit, canCreate }: Props) {
  const back = (
    <Button variant="default" component={Link} to={routePath('integrationEnroll')}>
      Back
    </Button>
  );
  return (
    <Stack gap="md" maw={720}>
      <Title order={2}>Enroll New Integration</Title>
      {!canCreate && (
        <Alert color="yellow" variant="light">
          Your roles do not allow creating integrations; the server will refuse to save one.
        </Alert>
      )}
      {type === undefined && (
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {integrationTypes.map((t) => (
            <Card
              key={t}
              withBorder
              component={Link}
              to={routePath('integrationEnroll', { type: t })}
              aria-label={integrationTitles[t]}
            >
              <Text fw={600}>{integrationTitles[t]}</Text>
              <Text size="sm" c="dimmed">
                {descriptions[t]}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      )}
      {type !== undefined && !isType(type) && (
        <Alert color="red" title="Unknown integration type" role="alert">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">There is no integration of type “{type}”.</Text>
            {back}
          </Stack>
        </Alert>
      )}
      {isType(type) && (
        <Stack gap="sm">
          <Title order={3}>{integrationTitles[type]}</Title>
          <IntegrationForm
            key={type}
            type={type}
            initial={emptyIntegrationForm()}
            onSubmit={onSubmit}
            cancel={back}
            submitLabel="Save Integration"
          />
        </Stack>
      )}
    </Stack>
  );
}
