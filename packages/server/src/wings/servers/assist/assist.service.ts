import {
  assistDefaultTitle,
  assistTitleMaxChars,
  type AssistCommandResult,
  type AssistConversation,
  type AssistMessage,
  type AssistMessageType,
  type AssistServerFrame,
} from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { ApiError, badParameter, notFound } from '../../../errors.js';
import { emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import type { UserRateLimiter } from '../user-rate-limiter.js';
import type { AssistResources } from './assist-resources.js';
import type { AssistServers } from './assist-tools.js';
import { assistTools } from './assist-tools.js';
import {
  ChatModelError,
  type ChatModel,
  type ModelMessage,
  type ModelToolCall,
  type ModelUsage,
} from './chat-model.js';
import type { ConversationsStore } from './conversations.store.js';
import { historyMessages, summaryRequest, systemPrompt, titlePrompt } from './model-prompts.js';

export interface AssistServiceDeps {
  store: ConversationsStore;
  /** Undefined: no model is configured, and the assistant is off. */
  model: ChatModel | undefined;
  servers: AssistServers;
  /** The other resources the user may reach, for `list_resources`; without it the tool says so. */
  resources?: AssistResources;
  audit: AuditStore;
  clusterName: string;
  now: () => number;
  /** Told about failures that are not the model's (storage), which the user sees only as such. */
  onError?: (error: unknown) => void;
  /** Model requests per user: each turn (with its lookups and title), title and summary. */
  limiter?: UserRateLimiter;
}

/** Who talks to the assistant: the tools see what this role set may reach. */
export interface AssistCaller {
  user: string;
  roleSet: RoleSet;
}

/** A conversation's length, in messages: past it, the user starts a new one. */
export const conversationMaxMessages = 500;
/** Model calls in one turn (lookups before an answer or a proposal). */
const maxSteps = 5;

/**
 * The assistant's rules: a user's conversations are theirs alone (another's is "not found"), a
 * turn is the user's message, the model's lookups and its answer or proposal, each stored as it
 * comes; every call to the model is audited with what it cost.
 */
export class AssistService {
  constructor(private readonly deps: AssistServiceDeps) {}

  get enabled(): boolean {
    return this.deps.model !== undefined;
  }

  async list(user: string): Promise<AssistConversation[]> {
    this.model();
    const conversations = await this.deps.store.list(user);
    return conversations.sort((a, b) => b.created_time.localeCompare(a.created_time));
  }

  async create(user: string): Promise<{ id: string }> {
    this.model();
    const id = randomUUID();
    const created_time = new Date(this.deps.now()).toISOString();
    await this.deps.store.create(user, { id, title: assistDefaultTitle, created_time });
    return { id };
  }

  async messages(user: string, id: string): Promise<AssistMessage[]> {
    await this.owned(user, id);
    return this.deps.store.messages(user, id);
  }

  async rename(user: string, id: string, title: string): Promise<void> {
    this.model();
    if (!(await this.deps.store.rename(user, id, title))) throw conversationNotFound(id);
  }

  async remove(user: string, id: string): Promise<void> {
    await this.owned(user, id);
    await this.deps.store.remove(user, id);
  }

  /** A short title for a conversation that starts with `message` (spec: `title/summary`). */
  async titleFor(user: string, message: string): Promise<string> {
    this.model();
    this.deps.limiter?.take(user);
    return this.title(user, message, '');
  }

  private async title(user: string, message: string, conversationId: string): Promise<string> {
    const model = this.model();
    try {
      const reply = await model.complete(titlePrompt(message));
      this.audited(user, conversationId, 'title', reply.usage);
      const title = reply.content
        .trim()
        .replace(/^["'“]+|["'”.]+$/g, '')
        .trim();
      if (title) return title.slice(0, assistTitleMaxChars);
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
    }
    // The model could not name it: the message's start will do.
    return message.replace(/\s+/g, ' ').trim().slice(0, 60);
  }

  /** The conversation, or 404 when it is not the user's (or the assistant is off). */
  async owned(user: string, id: string): Promise<AssistConversation> {
    this.model();
    const conversation = await this.deps.store.get(user, id);
    if (!conversation) throw conversationNotFound(id);
    return conversation;
  }

  /**
   * One turn: stores the user's message, asks the model (with the tools) until it answers or
   * proposes a command, and sends each step to `send` as it happens. A model that fails ends the
   * turn with a CHAT_MESSAGE_ERROR the user sees; the conversation stays usable.
   */
  async turn(
    caller: AssistCaller,
    conversationId: string,
    text: string,
    send: (frame: AssistServerFrame) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const model = this.model();
    const conversation = await this.owned(caller.user, conversationId);
    this.deps.limiter?.take(caller.user);
    const count = await this.deps.store.countMessages(caller.user, conversationId);
    if (count >= conversationMaxMessages) {
      throw badParameter(
        `this conversation is full (${conversationMaxMessages} messages): start a new one`,
      );
    }
    const store = (type: AssistMessageType, payload: string) =>
      this.append(caller.user, conversationId, type, payload, send);
    await store('CHAT_MESSAGE_USER', text);
    const naming =
      conversation.title === assistDefaultTitle
        ? this.nameConversation(caller.user, conversationId, text, send)
        : Promise.resolve();
    const history = await this.deps.store.messages(caller.user, conversationId);
    const messages = [
      systemPrompt(caller.user, this.deps.clusterName),
      ...historyMessages(history),
    ];
    const usage = emptyUsage();
    try {
      for (let step = 0; step < maxSteps; step++) {
        const reply = await model.complete(messages, {
          tools: assistTools,
          onText: (content) => send({ type: 'partial', content }),
          ...(signal ? { signal } : {}),
        });
        addUsage(usage, reply.usage);
        if (reply.content.trim()) await store('CHAT_MESSAGE_ASSISTANT', reply.content);
        if (reply.toolCalls.length === 0) break;
        messages.push({
          role: 'assistant',
          content: reply.content || null,
          tool_calls: reply.toolCalls,
        });
        const proposed = await this.useTools(caller, reply.toolCalls, messages, store);
        if (proposed) break;
        send({ type: 'progress', text: 'Looking at your servers' });
      }
    } catch (error) {
      if (!(error instanceof ChatModelError)) throw error;
      if (!signal?.aborted) await store('CHAT_MESSAGE_ERROR', error.message);
    } finally {
      this.audited(caller.user, conversationId, 'chat', usage);
    }
    await naming;
  }

  /** Stores one server's result of a run the user started from this conversation. */
  async addResult(user: string, conversationId: string, result: AssistCommandResult) {
    await this.append(user, conversationId, 'COMMAND_RESULT', JSON.stringify(result));
  }

  /**
   * The model's reading of a run's results (stored before, so it reads them with the rest of the
   * conversation); undefined when the model could not give one.
   */
  async summarize(
    caller: AssistCaller,
    conversationId: string,
    executionId: string,
    command: string,
  ): Promise<AssistMessage | undefined> {
    const model = this.model();
    try {
      this.deps.limiter?.take(caller.user);
    } catch (error) {
      // Over the user's allowance: the results stand without the model's reading of them.
      if (error instanceof ApiError) return undefined;
      throw error;
    }
    const history = await this.deps.store.messages(caller.user, conversationId);
    const messages = [
      systemPrompt(caller.user, this.deps.clusterName),
      ...historyMessages(history),
      summaryRequest(command),
    ];
    try {
      const reply = await model.complete(messages);
      this.audited(caller.user, conversationId, 'summary', reply.usage);
      if (!reply.content.trim()) return undefined;
      const payload = JSON.stringify({
        execution_id: executionId,
        command,
        summary: reply.content,
      });
      return await this.append(caller.user, conversationId, 'COMMAND_RESULT_SUMMARY', payload);
    } catch (error) {
      if (error instanceof ChatModelError) return undefined;
      throw error;
    }
  }

  /** Runs the turn's tool calls, adding each answer for the model; true once one proposed. */
  private async useTools(
    caller: AssistCaller,
    calls: ModelToolCall[],
    messages: ModelMessage[],
    store: (type: AssistMessageType, payload: string) => Promise<AssistMessage>,
  ): Promise<boolean> {
    let proposed = false;
    for (const call of calls) {
      const args = argumentsOf(call);
      let answer: string;
      if (call.function.name === 'list_servers') {
        answer = this.deps.servers.list(caller.roleSet, args);
      } else if (call.function.name === 'propose_command') {
        const proposal = this.deps.servers.propose(caller.roleSet, args);
        if (proposal.ok) {
          await store('COMMAND', JSON.stringify(proposal.command));
          proposed = true;
          answer = 'The user sees the proposal and decides whether to run it.';
        } else {
          answer = `Not proposed: ${proposal.reason}.`;
        }
      } else if (call.function.name === 'list_resources' && this.deps.resources) {
        answer = this.deps.resources.list(caller.roleSet, args);
      } else if (call.function.name === 'propose_connection' && this.deps.resources) {
        const proposal = this.deps.resources.propose(caller.roleSet, args);
        if (proposal.ok) {
          await store('CONNECTION', JSON.stringify(proposal.connection));
          proposed = true;
          answer = 'The user sees a card to connect, and connects from it if they wish.';
        } else {
          answer = `Not proposed: ${proposal.reason}.`;
        }
      } else {
        answer = `There is no tool called ${call.function.name}.`;
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: answer });
    }
    return proposed;
  }

  private async nameConversation(
    user: string,
    conversationId: string,
    text: string,
    send: (frame: AssistServerFrame) => void,
  ): Promise<void> {
    try {
      const title = await this.title(user, text, conversationId);
      if (await this.deps.store.rename(user, conversationId, title)) send({ type: 'title', title });
    } catch (error) {
      // The conversation keeps its first title; the turn goes on.
      this.deps.onError?.(error);
    }
  }

  private async append(
    user: string,
    conversationId: string,
    type: AssistMessageType,
    payload: string,
    send?: (frame: AssistServerFrame) => void,
  ): Promise<AssistMessage> {
    const message = { type, payload, created_time: new Date(this.deps.now()).toISOString() };
    await this.deps.store.append(user, conversationId, message);
    send?.({ type: 'message', message });
    return message;
  }

  private audited(user: string, conversationId: string, kind: string, usage: ModelUsage) {
    emitAuditInBackground(this.deps.audit, 'T68000I', {
      user,
      conversation_id: conversationId,
      completion_kind: kind,
      model: this.deps.model?.model,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
    });
  }

  private model(): ChatModel {
    if (!this.deps.model) throw assistOff();
    return this.deps.model;
  }
}

export const assistOff = () =>
  notFound(
    'the assistant is not set up on this cluster: an admin names its model in assist.openai (docs/assist.md)',
  );

const conversationNotFound = (id: string) => notFound(`conversation ${id} is not found`);

function argumentsOf(call: ModelToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const emptyUsage = (): ModelUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

function addUsage(total: ModelUsage, more: ModelUsage): void {
  total.prompt_tokens += more.prompt_tokens;
  total.completion_tokens += more.completion_tokens;
  total.total_tokens += more.total_tokens;
}
