import {
  apiPaths,
  assistConversationListSchema,
  assistConversationMessagesSchema,
  createAssistConversationResponseSchema,
  type AssistConversation,
  type AssistMessage,
} from '@postern/contracts';
import { api, decode } from '../../api';

/** The assistant's REST calls (docs/assist.md): the caller's own conversations, nobody else's. */

/** Newest first. */
export async function fetchConversations(signal?: AbortSignal): Promise<AssistConversation[]> {
  const url = apiPaths.assistConversations;
  return decode(assistConversationListSchema, await api.get(url, { signal }), url).conversations;
}

/** A new, empty conversation; the server names it after its first message. */
export async function createConversation(): Promise<string> {
  const url = apiPaths.assistConversations;
  return decode(createAssistConversationResponseSchema, await api.post(url, {}), url).id;
}

export async function fetchMessages(id: string, signal?: AbortSignal): Promise<AssistMessage[]> {
  const url = apiPaths.assistConversation(id);
  return decode(assistConversationMessagesSchema, await api.get(url, { signal }), url).messages;
}

export async function renameConversation(id: string, title: string): Promise<void> {
  await api.post(apiPaths.assistConversationTitle(id), { title });
}

export async function deleteConversation(id: string): Promise<void> {
  await api.delete(apiPaths.assistConversation(id));
}
