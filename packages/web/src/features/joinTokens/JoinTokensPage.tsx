import type { JoinTokenJson, JoinTokenListItem } from '@postern/contracts';
import { Text } from '@mantine/core';
import { useState } from 'react';
import { useUserAcl } from '../../app/userContext';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { attemptOf } from '../../lib/attempt';
import { proxyAddressOf } from '../nodes/NodesPage';
import { CreateJoinTokenDialog } from './CreateJoinTokenDialog';
import { JoinTokenCreatedDialog } from './JoinTokenCreatedDialog';
import { JoinTokensView } from './JoinTokensView';
import { useJoinTokenActions, useJoinTokens, useNow } from './useJoinTokens';

/** `/web/tokens`: Join Tokens, the console's `postern tokens ls / add / rm`. */
export function JoinTokensPage() {
  const acl = useUserAcl();
  const query = useJoinTokens();
  const actions = useJoinTokenActions();
  const now = useNow();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<JoinTokenJson | null>(null);
  const [deleting, setDeleting] = useState<JoinTokenListItem | null>(null);
  return (
    <>
      <JoinTokensView
        attempt={attemptOf(query)}
        onRetry={() => void query.refetch()}
        can={{ create: acl.tokens.create, remove: acl.tokens.remove }}
        now={now}
        onCreate={() => setCreating(true)}
        onDelete={setDeleting}
      />
      <CreateJoinTokenDialog
        opened={creating}
        onClose={() => setCreating(false)}
        onSubmit={async (request) => {
          const token = await actions.create(request);
          setCreating(false);
          setCreated(token);
        }}
      />
      <JoinTokenCreatedDialog
        created={created}
        proxy={proxyAddressOf(window.location)}
        now={now}
        onClose={() => {
          setCreated(null);
          void actions.reload();
        }}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete Join Token"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? actions.remove(deleting.id) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete join token <strong style={{ fontFamily: 'monospace' }}>{deleting?.id}</strong>? No
          host can join with it any more; hosts that already joined stay.
        </Text>
      </ConfirmDialog>
    </>
  );
}
