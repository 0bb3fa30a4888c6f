import { Button, Modal, Text } from '@mantine/core';
import { useState } from 'react';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { attemptOf } from '../../lib/attempt';
import { IntegrationForm } from './IntegrationForm';
import { formFromIntegration } from './integrationForm';
import { IntegrationsView, type TestResult } from './IntegrationsView';
import type { Integration } from './makeIntegration';
import { useIntegrationActions, useIntegrations } from './useIntegrations';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `/web/integrations`: the list, a test message per row, edit and delete. */
export function IntegrationsPage() {
  const acl = useUserAcl();
  const flags = useFeatureFlags();
  const query = useIntegrations();
  const actions = useIntegrationActions();
  const [testing, setTesting] = useState<string>();
  const [testResult, setTestResult] = useState<TestResult>();
  const [editing, setEditing] = useState<Integration | null>(null);
  const [deleting, setDeleting] = useState<Integration | null>(null);

  const test = async ({ name }: Integration) => {
    setTesting(name);
    setTestResult(undefined);
    try {
      await actions.test(name);
      setTestResult({ name, ok: true, message: `${name} delivered the test message.` });
    } catch (err) {
      setTestResult({ name, ok: false, message: `${name}: ${messageOf(err)}` });
    } finally {
      setTesting(undefined);
    }
  };

  return (
    <>
      <IntegrationsView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{
          create: flags.enrollIntegrationsOrPlugins,
          edit: acl.integrations.edit,
          remove: acl.integrations.remove,
          use: acl.integrations.use || acl.integrations.edit,
        }}
        onTest={(i) => void test(i)}
        testing={testing}
        testResult={testResult}
        onDismissResult={() => setTestResult(undefined)}
        onEdit={setEditing}
        onDelete={setDeleting}
      />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={`Edit ${editing?.name ?? ''}`}
        centered
      >
        {editing && (
          <IntegrationForm
            type={editing.type}
            initial={formFromIntegration(editing.json)}
            editing={{ secretsSet: editing.json.secretsSet }}
            onSubmit={async (input) => {
              await actions.update(input);
              setEditing(null);
            }}
            cancel={
              <Button variant="default" onClick={() => setEditing(null)}>
                Cancel
              </Button>
            }
            submitLabel="Save Changes"
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Integration"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.name) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete <strong>{deleting?.name}</strong>? Reviewers will no longer hear about requests
          through it.
        </Text>
      </ConfirmDialog>
    </>
  );
}
