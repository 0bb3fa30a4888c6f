import { Alert, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { routePath } from '../../app/routes';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import type { Attempt } from '../../lib/attempt';
import { statusColors, type Integration } from './makeIntegration';

/** The answer to the last "Send test message". */
export interface TestResult {
  name: string;
  ok: boolean;
  message: string;
}

interface Props {
  attempt: Attempt<Integration[]>;
  onRetry: () => void;
  can: { create: boolean; edit: boolean; remove: boolean; use: boolean };
  onTest: (integration: Integration) => void;
  /** The integration a test message is on its way through. */
  testing?: string;
  testResult?: TestResult;
  onDismissResult: () => void;
  onEdit: (integration: Integration) => void;
  onDelete: (integration: Integration) => void;
}

/** Manage Integrations: where access request notices go, and whether they arrive. */
export function IntegrationsView(props: Props) {
  const { attempt, onRetry, can, testing, testResult, onDismissResult } = props;
  const columns: Column<Integration>[] = [
    { key: 'name', header: 'Name', sortable: true },
    { key: 'typeTitle', header: 'Type', sortable: true },
    {
      key: 'state',
      header: 'Status',
      fit: true,
      sortable: true,
      render: (i) => (
        <Badge color={statusColors[i.state]} variant="light">
          {i.state}
        </Badge>
      ),
    },
    {
      key: 'lastDeliveryText',
      header: 'Last Delivery',
      visibleFrom: 'sm',
      sortable: true,
      sortValue: (i) => i.lastDelivery?.getTime() ?? 0,
    },
    {
      key: 'lastError',
      header: 'Last Error',
      visibleFrom: 'md',
      render: (i) => (
        <Text size="sm" c={i.lastError ? 'red' : 'dimmed'} style={{ overflowWrap: 'anywhere' }}>
          {i.lastError || 'none'}
          {i.pending > 0 && ` (${i.pending} waiting for a retry)`}
        </Text>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      fit: true,
      render: (i) => (
        <Group gap={4} wrap="nowrap">
          {can.use && (
            <Button
              size="compact-sm"
              variant="light"
              loading={testing === i.name}
              onClick={() => props.onTest(i)}
            >
              Send test message
            </Button>
          )}
          {can.edit && (
            <Button size="compact-sm" variant="subtle" onClick={() => props.onEdit(i)}>
              Edit
            </Button>
          )}
          {can.remove && (
            <Button
              size="compact-sm"
              variant="subtle"
              color="red"
              onClick={() => props.onDelete(i)}
            >
              Delete
            </Button>
          )}
        </Group>
      ),
    },
  ];
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Manage Integrations</Title>
        {can.create && (
          <Button component={Link} to={routePath('integrationEnroll')}>
            Enroll New Integration
          </Button>
        )}
      </Group>
      {testResult && (
        <Alert
          color={testResult.ok ? 'green' : 'red'}
          role={testResult.ok ? 'status' : 'alert'}
          title={testResult.ok ? 'Test message sent' : 'Test message failed'}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onDismissResult}
        >
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {testResult.message}
          </Text>
        </Alert>
      )}
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(integrations) => (
          <ResourceTable
            columns={columns}
            rows={integrations}
            rowKey={(i) => i.name}
            label="Integrations"
            emptyText="No integrations yet: reviewers hear about requests only in the console."
          />
        )}
      </AttemptView>
    </Stack>
  );
}
