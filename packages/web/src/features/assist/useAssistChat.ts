import { useEffect, useRef, useState } from 'react';
import { AssistChat, initialChatState, type ChatState } from './assistChatSocket';
import type { AssistDeps } from './assistSocket';
import { useStoreState } from './stateStore';

export interface ChatControls {
  state: ChatState;
  send: (text: string) => boolean;
  reconnect: () => void;
}

/** The chat socket of the open conversation, for as long as it is open. */
export function useAssistChat(
  deps: AssistDeps,
  clusterId: string,
  conversationId: string,
  onTitle: (title: string) => void,
): ChatControls {
  // The newest callback, without opening a new socket each time the page renders.
  const titleListener = useRef(onTitle);
  useEffect(() => {
    titleListener.current = onTitle;
  }, [onTitle]);

  const [chat, setChat] = useState<AssistChat>();
  useEffect(() => {
    const opened = new AssistChat({
      deps,
      clusterId,
      conversationId,
      onTitle: (title) => titleListener.current(title),
    });
    setChat(opened);
    opened.connect();
    return () => opened.dispose();
  }, [deps, clusterId, conversationId]);

  return {
    state: useStoreState(chat, initialChatState),
    send: (text) => chat?.send(text) ?? false,
    reconnect: () => chat?.reconnect(),
  };
}
