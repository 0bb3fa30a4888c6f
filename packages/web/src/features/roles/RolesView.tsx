import type { RoleItem } from '@postern/contracts';
import { Button, Group, Stack, Title } from '@mantine/core';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { RowActions, type RowAction } from '../../components/RowActions';
import type { Attempt } from '../../lib/attempt';

export interface RolePermissions {
  create: boolean;
  edit: boolean;
  remove: boolean;
}

interface Props {
  attempt: Attempt<RoleItem[]>;
  onRetry: () => void;
  can: RolePermissions;
  onCreate: () => void;
  onEdit: (role: RoleItem) => void;
  onDelete: (role: RoleItem) => void;
}

/** Manage Roles: the roles the user may read, with what the ACL lets them do to each. */
export function RolesView({ attempt, onRetry, can, onCreate, onEdit, onDelete }: Props) {
  const actionsOf = (role: RoleItem): RowAction[] => [
    ...(can.edit ? [{ label: 'Edit', onClick: () => onEdit(role) }] : []),
    ...(can.remove ? [{ label: 'Delete', color: 'red', onClick: () => onDelete(role) }] : []),
  ];
  const columns: Column<RoleItem>[] = [
    { key: 'name', header: 'Name', sortable: true },
    { key: 'description', header: 'Description', render: (r) => r.description ?? '' },
    ...(can.edit || can.remove
      ? [
          {
            key: 'actions',
            header: 'Actions',
            render: (r: RoleItem) => <RowActions actions={actionsOf(r)} />,
          },
        ]
      : []),
  ];
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Manage Roles</Title>
        {can.create && <Button onClick={onCreate}>Create New Role</Button>}
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(roles) => (
          <ResourceTable
            columns={columns}
            rows={roles}
            rowKey={(r) => r.id}
            emptyText="No roles found."
          />
        )}
      </AttemptView>
    </Stack>
  );
}
