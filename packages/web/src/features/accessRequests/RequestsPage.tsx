import { Text } from '@mantine/core';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserContext } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useNotify } from '../../components/Notifications';
import { attemptOf } from '../../lib/attempt';
import type { AccessRequest } from './makeRequest';
import { RequestsView, type RequestsTab } from './RequestsView';
import { useAccessRequestActions, useAccessRequests } from './useAccessRequests';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `/web/requests`: the tab is in the URL (`?tab=review`), so Back and links keep it. */
export function RequestsPage() {
  const [params, setParams] = useSearchParams();
  const tab: RequestsTab = params.get('tab') === 'review' ? 'review' : 'mine';
  const { userName } = useUserContext();
  const flags = useFeatureFlags();
  const query = useAccessRequests(tab);
  const actions = useAccessRequestActions();
  const notify = useNotify();
  const [deleting, setDeleting] = useState<AccessRequest | null>(null);
  const [assuming, setAssuming] = useState<string>();

  const assume = async (request: AccessRequest) => {
    setAssuming(request.id);
    try {
      await actions.assume(request.id);
    } catch (err) {
      notify({ title: 'Could not assume the roles', message: messageOf(err) });
      setAssuming(undefined);
    }
  };

  return (
    <>
      <RequestsView
        tab={tab}
        onTabChange={(next) => setParams(next === 'review' ? { tab: next } : {}, { replace: true })}
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        userName={userName}
        can={{ create: flags.newAccessRequest }}
        onAssume={(request) => void assume(request)}
        onDelete={setDeleting}
        assuming={assuming}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Request"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.id) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete your request for <strong>{deleting?.requestedText}</strong>? Reviewers will no
          longer see it.
        </Text>
      </ConfirmDialog>
    </>
  );
}
