import { Text } from '@mantine/core';
import type { ConnectorItem } from '@postern/contracts';
import { useState } from 'react';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { connectorKindLabels } from '../../components/ConnectorKindIcon';
import { attemptOf } from '../../lib/attempt';
import { pageLocation } from '../../lib/pageLocation';
import { ConnectorEditor, type ConnectorEditorTarget } from './ConnectorEditor';
import { ConnectorsView } from './ConnectorsView';
import { useConnectorActions, useConnectors } from './useConnectors';

/** `/web/sso`: the list under its data, the editor drawer and the delete confirmation. */
export function ConnectorsPage() {
  const acl = useUserAcl();
  const query = useConnectors();
  const actions = useConnectorActions();
  const [editing, setEditing] = useState<ConnectorEditorTarget | null>(null);
  const [deleting, setDeleting] = useState<ConnectorItem | null>(null);
  const { create, edit, remove } = acl.authConnectors;

  return (
    <>
      <ConnectorsView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{ create, edit, remove }}
        onCreate={(kind) => setEditing({ mode: 'create', kind })}
        onEdit={({ kind, name, content }) => setEditing({ mode: 'edit', kind, name, content })}
        onDelete={setDeleting}
      />
      <ConnectorEditor
        target={editing}
        origin={pageLocation.origin()}
        onClose={() => setEditing(null)}
        onSave={(target, content) =>
          target.mode === 'create'
            ? actions.create(target.kind, content)
            : actions.update(target.kind, target.name, content)
        }
        onReload={actions.latest}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Auth Connector"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() =>
          deleting ? actions.remove(deleting.kind, deleting.name) : Promise.resolve()
        }
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete the {deleting && connectorKindLabels[deleting.kind]} connector{' '}
          <strong>{deleting?.name}</strong>? People who sign in with it can no longer do so.
        </Text>
      </ConfirmDialog>
    </>
  );
}
