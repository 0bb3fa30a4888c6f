import {
  assistConversationSchema,
  assistMessageSchema,
  type AssistConversation,
  type AssistMessage,
} from '@postern/contracts';
import type { Backend } from '../../../backend/index.js';

/**
 * The assistant's conversations, each under its user's prefix (a user lists only their own with
 * one range read): `/assistant/conversations/<user>/<id>` and its messages under
 * `/assistant/messages/<user>/<id>/<sequence>`, where the sequence sorts in the order written.
 */
export class ConversationsStore {
  private lastSequence = 0;

  constructor(private readonly backend: Backend) {}

  async list(user: string): Promise<AssistConversation[]> {
    const { items } = await this.backend.list({ prefix: `${conversationsOf(user)}/` });
    return items.map((item) => assistConversationSchema.parse(JSON.parse(item.value)));
  }

  async get(user: string, id: string): Promise<AssistConversation | undefined> {
    const item = await this.backend.get(conversationKey(user, id));
    return item ? assistConversationSchema.parse(JSON.parse(item.value)) : undefined;
  }

  async create(user: string, conversation: AssistConversation): Promise<void> {
    await this.backend.create({
      key: conversationKey(user, conversation.id),
      value: JSON.stringify(conversation),
    });
  }

  async rename(user: string, id: string, title: string): Promise<boolean> {
    const item = await this.backend.get(conversationKey(user, id));
    if (!item) return false;
    const conversation = assistConversationSchema.parse(JSON.parse(item.value));
    await this.backend.update(
      { key: item.key, value: JSON.stringify({ ...conversation, title }) },
      item.revision,
    );
    return true;
  }

  /** The messages first, so a conversation never shows without the ones it had. */
  async remove(user: string, id: string): Promise<void> {
    await this.backend.deleteRange(`${messagesOf(user, id)}/`);
    await this.backend.delete(conversationKey(user, id));
  }

  async messages(user: string, id: string): Promise<AssistMessage[]> {
    const { items } = await this.backend.list({ prefix: `${messagesOf(user, id)}/` });
    return items.map((item) => assistMessageSchema.parse(JSON.parse(item.value)));
  }

  async countMessages(user: string, id: string): Promise<number> {
    const { items } = await this.backend.list({ prefix: `${messagesOf(user, id)}/` });
    return items.length;
  }

  async append(user: string, id: string, message: AssistMessage): Promise<void> {
    await this.backend.create({
      key: `${messagesOf(user, id)}/${this.nextSequence(Date.parse(message.created_time))}`,
      value: JSON.stringify(message),
    });
  }

  /**
   * Milliseconds, then a counter within this process: two messages of the same millisecond keep
   * their order, and another proxy's message of that millisecond cannot take the same key.
   */
  private nextSequence(at: number): string {
    this.lastSequence = (this.lastSequence + 1) % 1_000_000;
    const random = Math.floor(Math.random() * 1e6);
    return `${String(at).padStart(15, '0')}-${String(this.lastSequence).padStart(6, '0')}-${String(random).padStart(6, '0')}`;
  }
}

// A user's name may hold characters a key segment must not ('/'): it is encoded.
const conversationsOf = (user: string) => `/assistant/conversations/${encodeURIComponent(user)}`;
const conversationKey = (user: string, id: string) => `${conversationsOf(user)}/${id}`;
const messagesOf = (user: string, id: string) =>
  `/assistant/messages/${encodeURIComponent(user)}/${id}`;
