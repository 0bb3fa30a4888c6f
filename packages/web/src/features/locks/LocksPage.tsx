import { Text } from '@mantine/core';
import { useMemo, useState } from 'react';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useBotInstances } from '../bots/useBots';
import { attemptOf } from '../../lib/attempt';
import type { Lock } from './makeLock';
import { LocksView } from './LocksView';
import { useLockActions, useLocks } from './useLocks';

export function LocksPage() {
  const acl = useUserAcl();
  const flags = useFeatureFlags();
  const query = useLocks();
  const actions = useLockActions();
  const [deleting, setDeleting] = useState<Lock | null>(null);
  const instances = useBotInstances(acl.bots.list);
  const botOfInstance = useMemo(() => {
    const bots = new Map((instances.data ?? []).map(({ bot, instance }) => [instance.id, bot]));
    return (id: string) => bots.get(id);
  }, [instances.data]);
  return (
    <>
      <LocksView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        // Create New Lock is its own page, behind the newLocks flag.
        can={{ create: flags.newLocks, remove: acl.lock.remove }}
        onDelete={setDeleting}
        botOfInstance={botOfInstance}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Lock"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.id) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete the lock on <strong>{deleting?.targetText}</strong>? The target can sign in and
          connect again at once.
        </Text>
      </ConfirmDialog>
    </>
  );
}
