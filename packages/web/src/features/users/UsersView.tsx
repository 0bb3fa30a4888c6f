import { Button, Group, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { AttemptView } from '../../components/AttemptView';
import { ResourceTable, type Column } from '../../components/ResourceTable';
import { RoleBadges } from '../../components/RoleBadges';
import { RowActions, type RowAction } from '../../components/RowActions';
import type { Attempt } from '../../lib/attempt';
import { matchesSearch, type User } from './makeUser';

export interface UserPermissions {
  create: boolean;
  edit: boolean;
  remove: boolean;
}

interface Props {
  attempt: Attempt<User[]>;
  onRetry: () => void;
  can: UserPermissions;
  onCreate: () => void;
  onEdit: (user: User) => void;
  onResetPassword: (user: User) => void;
  onDelete: (user: User) => void;
  /** Opens a bot's user in Manage Bots; absent when the user may not list bots. */
  onManageBot?: (user: User) => void;
}

/** Manage Users: name, sorted roles and auth type, with a search and the allowed actions. */
export function UsersView(props: Props) {
  const { attempt, onRetry, can, onCreate, onEdit, onResetPassword, onDelete, onManageBot } = props;
  const [search, setSearch] = useState('');

  const actionsOf = (user: User): RowAction[] =>
    user.bot ? botActions(user) : personActions(user);
  // A bot's user is changed and deleted as the bot (the server refuses it here).
  const botActions = (user: User): RowAction[] =>
    onManageBot ? [{ label: 'Manage Bot', onClick: () => onManageBot(user) }] : [];
  const personActions = (user: User): RowAction[] => [
    // SSO users get their roles and traits from their connector at each sign-in and have no
    // password here: only Delete applies (the server refuses the rest too).
    ...(can.edit && user.isLocal ? [{ label: 'Edit', onClick: () => onEdit(user) }] : []),
    ...(can.edit && user.isLocal
      ? [{ label: 'Reset Password', onClick: () => onResetPassword(user) }]
      : []),
    ...(can.remove ? [{ label: 'Delete', color: 'red', onClick: () => onDelete(user) }] : []),
  ];
  const columns: Column<User>[] = [
    { key: 'name', header: 'Name', sortable: true },
    {
      key: 'roles',
      header: 'Roles',
      render: (u) => <RoleBadges roles={u.roles} />,
    },
    { key: 'authTypeText', header: 'Type', sortable: true },
    ...(can.edit || can.remove
      ? [
          {
            key: 'actions',
            header: 'Actions',
            render: (u: User) => <RowActions actions={actionsOf(u)} />,
          },
        ]
      : []),
  ];

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2}>Manage Users</Title>
        {can.create && <Button onClick={onCreate}>Create User</Button>}
      </Group>
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(users) => (
          <Stack gap="sm">
            <TextInput
              aria-label="Search users"
              placeholder="Search by name, role or type"
              value={search}
              onChange={(e) => setSearch(e.currentTarget.value)}
              maw={360}
            />
            <ResourceTable
              columns={columns}
              rows={users.filter((u) => matchesSearch(u, search))}
              rowKey={(u) => u.name}
              emptyText={search ? 'No users match the search.' : 'No users found.'}
            />
          </Stack>
        )}
      </AttemptView>
    </Stack>
  );
}
