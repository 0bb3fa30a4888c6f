import type { AssistCommand } from '@postern/contracts';
import { AttemptView } from '../../components/AttemptView';
import { attemptOf } from '../../lib/attempt';
import type { AssistDeps } from './assistSocket';
import { CommandCard } from './CommandCard';
import { ConversationView } from './ConversationView';
import { useAssistChat } from './useAssistChat';
import { useCommandRun } from './useCommandRun';
import { useConversationMessages } from './useConversations';

interface Props {
  deps: AssistDeps;
  clusterId: string;
  conversationId: string;
  onTitle: (conversationId: string, title: string) => void;
}

/** The open conversation: its stored messages, and its chat socket for what comes next. */
export function ConversationPane({ deps, clusterId, conversationId, onTitle }: Props) {
  const stored = useConversationMessages(conversationId);
  const chat = useAssistChat(deps, clusterId, conversationId, (title) =>
    onTitle(conversationId, title),
  );
  const renderCommand = (command: AssistCommand) => (
    <CommandMessage
      command={command}
      deps={deps}
      clusterId={clusterId}
      conversationId={conversationId}
    />
  );
  const reconnect = () => {
    chat.reconnect();
    void stored.refetch();
  };
  return (
    <AttemptView attempt={attemptOf(stored)} onRetry={() => void stored.refetch()}>
      {(messages) => (
        <ConversationView
          messages={[...messages, ...chat.state.messages]}
          chat={chat.state}
          // The input waits for the stored messages, read again after a reconnect.
          reading={stored.isFetching}
          onSend={chat.send}
          onReconnect={reconnect}
          clusterId={clusterId}
          renderCommand={renderCommand}
        />
      )}
    </AttemptView>
  );
}

interface CommandMessageProps {
  command: AssistCommand;
  deps: AssistDeps;
  clusterId: string;
  conversationId: string;
}

/** A proposed command's card, with its runs. */
function CommandMessage({ command, deps, clusterId, conversationId }: CommandMessageProps) {
  const { state, run } = useCommandRun(deps, clusterId, conversationId);
  return <CommandCard command={command} run={state} onRun={run} clusterId={clusterId} />;
}
