import { Text } from '@mantine/core';
import type { AssistConversation } from '@postern/contracts';
import { useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { useAppNavigation } from '../../app/useAppNavigation';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useNotify } from '../../components/Notifications';
import { attemptOf } from '../../lib/attempt';
import { browserAssistDeps } from './assistDeps';
import type { AssistDeps } from './assistSocket';
import { AssistView, NoConversation } from './AssistView';
import { ConversationPane } from './ConversationPane';
import { RenameDialog } from './RenameDialog';
import { useConversationActions, useConversations } from './useConversations';

/**
 * `/web/assist/:conversationId?`: chats with the assistant (docs/assist.md). The sockets talk to
 * the proxy's own cluster, which reaches every server the user may; tests pass fake `deps`.
 */
export function AssistPage({ deps }: { deps?: Partial<AssistDeps> } = {}) {
  const { proxyCluster } = useClientConfig();
  const { conversationId } = useParams();
  const navigation = useAppNavigation();
  const notify = useNotify();
  const list = useConversations();
  const actions = useConversationActions();
  const allDeps = useMemo<AssistDeps>(() => ({ ...browserAssistDeps(), ...deps }), [deps]);
  const [creating, setCreating] = useState(false);
  const [renaming, setRenaming] = useState<AssistConversation | null>(null);
  const [deleting, setDeleting] = useState<AssistConversation | null>(null);

  const startConversation = async () => {
    setCreating(true);
    try {
      const id = await actions.create();
      navigation.push(routePath('assist', { conversationId: id }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      notify({ title: 'No new conversation', message, color: 'red' });
    } finally {
      setCreating(false);
    }
  };
  const remove = async (conversation: AssistConversation) => {
    await actions.remove(conversation.id);
    if (conversation.id === conversationId) navigation.push(routePath('assist'));
  };

  return (
    <>
      <AssistView
        conversations={attemptOf(list)}
        onRetry={() => void list.refetch()}
        selectedId={conversationId}
        onNew={() => void startConversation()}
        creating={creating}
        onRename={setRenaming}
        onDelete={setDeleting}
      >
        {conversationId ? (
          <ConversationPane
            key={conversationId}
            deps={allDeps}
            clusterId={proxyCluster}
            conversationId={conversationId}
            onTitle={actions.showTitle}
          />
        ) : (
          <NoConversation onNew={() => void startConversation()} creating={creating} />
        )}
      </AssistView>
      <RenameDialog
        conversation={renaming}
        onClose={() => setRenaming(null)}
        onRename={(conversation, title) => actions.rename(conversation.id, title)}
      />
      <ConfirmDialog
        opened={deleting !== null}
        title="Delete conversation"
        confirmLabel="Delete"
        confirmColor="red"
        onConfirm={() => (deleting ? remove(deleting) : Promise.resolve())}
        onClose={() => setDeleting(null)}
      >
        <Text>
          Delete <strong>{deleting?.title}</strong>? Its messages go with it; the recordings of the
          commands it ran stay.
        </Text>
      </ConfirmDialog>
    </>
  );
}
