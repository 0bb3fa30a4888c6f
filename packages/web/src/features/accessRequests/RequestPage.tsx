import { Text } from '@mantine/core';
import { useState } from 'react';
import { useParams } from 'react-router';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { useUserAcl, useUserContext } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useNotify } from '../../components/Notifications';
import { attemptOf } from '../../lib/attempt';
import { RequestView } from './RequestView';
import { useAccessRequest, useAccessRequestActions } from './useAccessRequests';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `/web/requests/:requestId`: the request, its reviews, and the review or assume actions. */
export function RequestPage() {
  const requestId = useParams().requestId ?? '';
  const { userName } = useUserContext();
  const acl = useUserAcl();
  const query = useAccessRequest(requestId);
  const actions = useAccessRequestActions();
  const navigation = useAppNavigation();
  const notify = useNotify();
  const [assuming, setAssuming] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const assume = async () => {
    setAssuming(true);
    try {
      await actions.assume(requestId);
    } catch (err) {
      notify({ title: 'Could not assume the roles', message: messageOf(err) });
      setAssuming(false);
    }
  };

  return (
    <>
      <RequestView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        userName={userName}
        onReview={(state, reason) => actions.review(requestId, { state, reason })}
        onAssume={() => void assume()}
        assuming={assuming}
        onDelete={() => setDeleting(true)}
        mayLock={acl.lock.create}
      />
      <ConfirmDialog
        opened={deleting}
        title="Delete Request"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={async () => {
          await actions.remove(requestId);
          navigation.push(routePath('accessRequests'));
        }}
        onClose={() => setDeleting(false)}
      >
        <Text>Delete this request? Reviewers will no longer see it.</Text>
      </ConfirmDialog>
    </>
  );
}
