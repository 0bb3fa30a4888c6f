import type { AssistConversation } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  createConversation,
  deleteConversation,
  fetchConversations,
  fetchMessages,
  renameConversation,
} from './assistApi';

const conversationsKey = ['assist', 'conversations'] as const;
const messagesKey = (id: string) => ['assist', 'messages', id] as const;

/** The signed-in user's conversations, newest first. */
export function useConversations() {
  return useQuery({
    queryKey: conversationsKey,
    queryFn: ({ signal }) => fetchConversations(signal),
  });
}

/**
 * A conversation's stored messages, read once each time it is opened: what its chat socket
 * brings afterwards is added on top, so reading them again meanwhile would show those twice.
 * Forgotten as soon as it is closed, so opening it again reads what was added while it was open.
 */
export function useConversationMessages(id: string) {
  return useQuery({
    queryKey: messagesKey(id),
    queryFn: ({ signal }) => fetchMessages(id, signal),
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

export interface ConversationActions {
  /** Returns the new conversation's id. */
  create(): Promise<string>;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** A title the chat socket announced: shown at once, without reading the list again. */
  showTitle(id: string, title: string): void;
}

export function useConversationActions(): ConversationActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: conversationsKey });
    return {
      create: async () => {
        const id = await createConversation();
        await reload();
        return id;
      },
      rename: async (id, title) => {
        await renameConversation(id, title);
        await reload();
      },
      remove: async (id) => {
        await deleteConversation(id);
        await reload();
      },
      showTitle: (id, title) =>
        client.setQueryData<AssistConversation[]>(conversationsKey, (list) =>
          list?.map((c) => (c.id === id ? { ...c, title } : c)),
        ),
    };
  }, [client]);
}
