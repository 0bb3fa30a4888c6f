import type { UserToken } from '@postern/contracts';
import { Text } from '@mantine/core';
import { useState } from 'react';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { attemptOf } from '../../lib/attempt';
import { formatDateTime, parseTimestamp } from '../../lib/format';
import { useRoleNames } from '../roles/useRoles';
import type { User } from './makeUser';
import { UserDialog, type UserDialogTarget } from './UserDialog';
import { UserLinkDialog, type UserLink, type UserLinkState } from './UserLinkDialog';
import { userTokenLink, type UserTokenType } from './usersApi';
import { useUserActions, useUsers } from './useUsers';
import { UsersView } from './UsersView';
import { useEditFromLink } from './useEditFromLink';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

function toLink(token: UserToken): UserLink {
  const expires = parseTimestamp(token.expiry);
  return {
    url: userTokenLink(token),
    expiresText: expires ? formatDateTime(expires) : token.expiry,
  };
}

export function UsersPage() {
  const acl = useUserAcl();
  const flags = useFeatureFlags();
  const navigation = useAppNavigation();
  const query = useUsers();
  const roleNames = useRoleNames(acl.roles.list);
  const actions = useUserActions();
  const [editing, setEditing] = useState<UserDialogTarget | null>(null);
  const [resetting, setResetting] = useState<User | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const [link, setLink] = useState<UserLinkState | null>(null);
  useEditFromLink(query.data, acl.users.edit, (user) => setEditing({ mode: 'edit', user }));

  /** Asks for the link and shows it; a failure stays in the dialog with a retry. */
  const showLink = async (user: string, type: UserTokenType, created = false) => {
    setLink({ user, type, created, attempt: { status: 'loading' } });
    try {
      const token = await actions.link(user, type);
      setLink({ user, type, created, attempt: { status: 'success', data: toLink(token) } });
    } catch (err) {
      setLink({ user, type, created, attempt: { status: 'error', message: messageOf(err) } });
    }
  };

  return (
    <>
      <UsersView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{ create: acl.users.create, edit: acl.users.edit, remove: acl.users.remove }}
        onCreate={() => setEditing({ mode: 'create' })}
        onEdit={(user) => setEditing({ mode: 'edit', user })}
        onResetPassword={setResetting}
        onDelete={setDeleting}
        onManageBot={
          flags.bots
            ? (user) =>
                navigation.push(
                  `${routePath('bots')}?${new URLSearchParams({ search: user.bot ?? '' })}`,
                )
            : undefined
        }
      />
      <UserDialog
        target={editing}
        // Without roles.list (or while the list fails) roles are typed in.
        roleOptions={roleNames.data}
        onClose={() => setEditing(null)}
        onSubmit={async (request, target) => {
          if (target.mode === 'edit') {
            await actions.update(request);
            setEditing(null);
            return;
          }
          await actions.create(request);
          setEditing(null);
          void showLink(request.name, 'invite', true);
        }}
      />
      <UserLinkDialog
        state={link}
        onRetry={() => link && void showLink(link.user, link.type, link.created)}
        onClose={() => setLink(null)}
      />
      <ConfirmDialog
        opened={resetting !== null}
        title="Reset Password"
        confirmLabel="Create Reset Link"
        onConfirm={async () => {
          if (resetting) void showLink(resetting.name, 'password');
        }}
        onClose={() => setResetting(null)}
      >
        <Text>
          Create a password reset link for <strong>{resetting?.name}</strong>? With it they set a
          new password and second factor; their sessions end when they do.
        </Text>
      </ConfirmDialog>
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete User"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.name) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete the user <strong>{deleting?.name}</strong>? They can no longer sign in, and this
          cannot be undone.
        </Text>
      </ConfirmDialog>
    </>
  );
}
