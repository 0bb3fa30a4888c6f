import type { BotJson } from '@postern/contracts';
import { Text } from '@mantine/core';
import { useState } from 'react';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useNotify } from '../../components/Notifications';
import { proxyAddressOf } from '../nodes/NodesPage';
import { useRoleNames } from '../roles/useRoles';
import { BotDetailsDialog } from './BotDetailsDialog';
import { BotDialog, type BotDialogTarget } from './BotDialog';
import { BotsView } from './BotsView';
import { JoinTokenDialog, type IssuedJoin } from './JoinTokenDialog';
import { useBotActions, useBots, useUrlBotFilters } from './useBots';

/** `/web/bots`: Manage Bots (docs/bots.md), the console's `postern bots`. */
export function BotsPage() {
  const acl = useUserAcl();
  const flags = useFeatureFlags();
  const navigation = useAppNavigation();
  const [filters, setFilters] = useUrlBotFilters();
  const { listProps } = useBots(filters);
  const roleNames = useRoleNames(acl.roles.list);
  const actions = useBotActions();
  const notify = useNotify();
  const [editing, setEditing] = useState<BotDialogTarget | null>(null);
  const [shown, setShown] = useState<BotJson | null>(null);
  const [issued, setIssued] = useState<IssuedJoin | null>(null);
  const [deleting, setDeleting] = useState<BotJson | null>(null);

  const issueToken = async (bot: BotJson) => {
    try {
      const token = await actions.newToken(bot.name, '');
      setIssued({ bot: bot.name, token, created: false });
    } catch (err) {
      notify({
        title: 'No join token',
        message: err instanceof Error ? err.message : String(err),
        color: 'red',
      });
    }
  };

  return (
    <>
      <BotsView
        {...listProps}
        filters={filters}
        onFiltersChange={setFilters}
        can={{ create: acl.bots.create, edit: acl.bots.edit, remove: acl.bots.remove }}
        onCreate={() => setEditing({ mode: 'create' })}
        onShow={setShown}
        onEdit={(bot) => setEditing({ mode: 'edit', bot })}
        onNewToken={(bot) => void issueToken(bot)}
        onDelete={setDeleting}
        onLock={
          flags.newLocks
            ? (bot) =>
                navigation.push(
                  `${routePath('newLock')}?${new URLSearchParams({ kind: 'user', name: bot.user })}`,
                )
            : undefined
        }
      />
      <BotDialog
        target={editing}
        roleOptions={roleNames.data}
        defaultAudience={window.location.hostname}
        onClose={() => setEditing(null)}
        onSubmit={async (request, target) => {
          if (target.mode === 'edit') {
            const { roles, logins, oidc } = request;
            await actions.update(target.bot.name, {
              roles,
              ...(logins ? { logins } : {}),
              ...(oidc !== undefined ? { oidc } : {}),
            });
            setEditing(null);
            return;
          }
          const { oidc, ...rest } = request;
          const created = await actions.create(oidc ? { ...rest, oidc } : rest);
          setEditing(null);
          const bot = created.bot.name;
          // No token for a bot that CI jobs join with their ID token: the job's command instead.
          setIssued(
            created.token
              ? { bot, token: created.token, created: true }
              : { bot, created: true, ciAudience: request.oidc?.audience ?? '' },
          );
        }}
      />
      <JoinTokenDialog
        issued={issued}
        proxy={proxyAddressOf(window.location)}
        onClose={() => setIssued(null)}
      />
      <BotDetailsDialog bot={shown} onClose={() => setShown(null)} mayLock={acl.lock.create} />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Bot"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.name) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete bot <strong>{deleting?.name}</strong>? Its user {deleting?.user}, its join tokens
          and its running copies go with it, and their certificates stop working at once.
        </Text>
      </ConfirmDialog>
    </>
  );
}
