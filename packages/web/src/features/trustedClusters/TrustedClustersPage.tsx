import { Text } from '@mantine/core';
import type { TrustedClusterItem } from '@postern/contracts';
import { useState } from 'react';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { attemptOf } from '../../lib/attempt';
import { TrustedClusterEditor, type TrustedClusterEditorTarget } from './TrustedClusterEditor';
import { TrustedClustersView } from './TrustedClustersView';
import { useTrustedClusterActions, useTrustedClusters } from './useTrustedClusters';

/** `/web/trust`: the list under its data, the editor drawer and the delete confirmation. */
export function TrustedClustersPage() {
  const acl = useUserAcl();
  const query = useTrustedClusters();
  const actions = useTrustedClusterActions();
  const [editing, setEditing] = useState<TrustedClusterEditorTarget | null>(null);
  const [deleting, setDeleting] = useState<TrustedClusterItem | null>(null);
  const { create, edit, remove } = acl.trustedClusters;

  return (
    <>
      <TrustedClustersView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{ create, edit, remove }}
        onCreate={() => setEditing({ mode: 'create' })}
        onEdit={({ name, content }) => setEditing({ mode: 'edit', name, content })}
        onDelete={setDeleting}
      />
      <TrustedClusterEditor
        target={editing}
        onClose={() => setEditing(null)}
        onSave={(target, content) =>
          target.mode === 'create' ? actions.create(content) : actions.update(target.name, content)
        }
        onReload={actions.latest}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Trusted Cluster"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.name) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Disconnect from the root cluster <strong>{deleting?.name}</strong>? Its users can no
          longer reach this cluster&apos;s resources.
        </Text>
      </ConfirmDialog>
    </>
  );
}
