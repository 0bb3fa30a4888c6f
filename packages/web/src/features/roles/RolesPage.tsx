import type { RoleItem } from '@postern/contracts';
import { Text } from '@mantine/core';
import { useState } from 'react';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { attemptOf } from '../../lib/attempt';
import { RoleEditor, type RoleEditorTarget } from './RoleEditor';
import { RolesView } from './RolesView';
import { useRoleActions, useRoles } from './useRoles';

export function RolesPage() {
  const acl = useUserAcl();
  const query = useRoles();
  const actions = useRoleActions();
  const [editing, setEditing] = useState<RoleEditorTarget | null>(null);
  const [deleting, setDeleting] = useState<RoleItem | null>(null);

  return (
    <>
      <RolesView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{ create: acl.roles.create, edit: acl.roles.edit, remove: acl.roles.remove }}
        onCreate={() => setEditing({ mode: 'create' })}
        onEdit={(role) => setEditing({ mode: 'edit', name: role.name, content: role.content })}
        onDelete={setDeleting}
      />
      <RoleEditor
        target={editing}
        onClose={() => setEditing(null)}
        onSave={(target, content) =>
          target.mode === 'create' ? actions.create(content) : actions.update(target.name, content)
        }
        onReload={actions.latest}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Role"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.name) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete the role <strong>{deleting?.name}</strong>? Users who hold it must lose it first.
        </Text>
      </ConfirmDialog>
    </>
  );
}
