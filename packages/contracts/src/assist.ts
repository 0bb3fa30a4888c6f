import { z } from 'zod';
import { unifiedResourceSchema } from './unified-resources.js';

/**
 * The assistant (spec §2 `/web/assist/{conversationId?}`, §7 `assistant/…`; docs/assist.md): a
 * chat, per user, with a language model the cluster's admin configures (any OpenAI-compatible
 * chat API). It knows the servers its user may reach and proposes commands; a command runs only
 * when the user presses Run, on each chosen server as a recorded session of that user.
 */

/** What a conversation holds, in order. Each is stored with its conversation. */
export const assistMessageTypes = [
  /** The user's words. */
  'CHAT_MESSAGE_USER',
  /** The model's answer (plain text with Markdown code blocks). */
  'CHAT_MESSAGE_ASSISTANT',
  /** The model could not be reached, or refused: the turn ended without an answer. */
  'CHAT_MESSAGE_ERROR',
  /** A command the model proposes, waiting for the user to run it (payload: AssistCommand). */
  'COMMAND',
  /** One server's output of a command the user ran (payload: AssistCommandResult). */
  'COMMAND_RESULT',
  /** The model's reading of a run's results (payload: AssistCommandSummary). */
  'COMMAND_RESULT_SUMMARY',
  /**
   * A resource the model offers to connect to, with the console's own Connect (payload:
   * AssistConnection): the user picks the login, database user or command there.
   */
  'CONNECTION',
] as const;
export type AssistMessageType = (typeof assistMessageTypes)[number];

export const assistMessageSchema = z.object({
  type: z.enum(assistMessageTypes),
  /** Text, or for COMMAND, COMMAND_RESULT and COMMAND_RESULT_SUMMARY a JSON object as text. */
  payload: z.string(),
  created_time: z.string(),
});
export type AssistMessage = z.infer<typeof assistMessageSchema>;

/** The most a user may type in one message, and a conversation's title. */
export const assistMessageMaxChars = 8000;
export const assistTitleMaxChars = 120;
/** The servers one command may run on at once. */
export const assistCommandMaxNodes = 50;
/** The output of one server kept in the conversation (the whole output is in the recording). */
export const assistResultMaxChars = 16 * 1024;

export const assistServerRefSchema = z.object({ id: z.string(), hostname: z.string() });
export type AssistServerRef = z.infer<typeof assistServerRefSchema>;

/** A proposed command: what, as which login, on which servers (those the user may reach). */
export const assistCommandSchema = z.object({
  command: z.string(),
  login: z.string(),
  nodes: z.array(assistServerRefSchema),
  /** Logins the user may use on every one of those servers, for the console's choice. */
  logins: z.array(z.string()),
});
export type AssistCommand = z.infer<typeof assistCommandSchema>;

export const assistCommandResultSchema = z.object({
  execution_id: z.string(),
  node_id: z.string(),
  node_name: z.string(),
  /** The recorded session that ran it, when one started. */
  session_id: z.string().optional(),
  /** The output, its last `assistResultMaxChars` characters. */
  output: z.string(),
  /** The output was longer, and its start was dropped (the recording holds all of it). */
  truncated: z.boolean().optional(),
  exit_code: z.number().int().optional(),
  /** Why it did not run, or how it ended early. */
  error: z.string().optional(),
});
export type AssistCommandResult = z.infer<typeof assistCommandResultSchema>;

export const assistCommandSummarySchema = z.object({
  execution_id: z.string(),
  command: z.string(),
  summary: z.string(),
});
export type AssistCommandSummary = z.infer<typeof assistCommandSummarySchema>;

/**
 * A proposed connection: the resource as the Resources page lists it for the user when it was
 * proposed (its kind's own list item), so the card connects as that page's row does.
 */
export const assistConnectionSchema = z.object({ resource: unifiedResourceSchema });
export type AssistConnection = z.infer<typeof assistConnectionSchema>;

/** A conversation's title until its first message names it. */
export const assistDefaultTitle = 'New conversation';

export const assistConversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  created_time: z.string(),
});
export type AssistConversation = z.infer<typeof assistConversationSchema>;

export const assistConversationListSchema = z.object({
  conversations: z.array(assistConversationSchema),
});
export type AssistConversationList = z.infer<typeof assistConversationListSchema>;

export const createAssistConversationResponseSchema = z.object({ id: z.string() });

export const assistConversationMessagesSchema = z.object({
  messages: z.array(assistMessageSchema),
});
export type AssistConversationMessages = z.infer<typeof assistConversationMessagesSchema>;

export const setAssistTitleRequestSchema = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'a title must not be empty')
    .max(assistTitleMaxChars, `at most ${assistTitleMaxChars} characters`),
});

export const assistTitleSummaryRequestSchema = z.object({
  message: z
    .string()
    .trim()
    .min(1, 'give the message to make a title from')
    .max(assistMessageMaxChars, `at most ${assistMessageMaxChars} characters`),
});
export const assistTitleSummaryResponseSchema = z.object({ title: z.string() });

const conversationIdSchema = z.uuid('must be a conversation id');

/**
 * The chat socket (`sites/{clusterId}/assistant?conversation_id=`): after the first frame
 * `{token}` (the bearer, proven with the upgrade's cookie, as every socket here), the client
 * sends the user's messages and the server answers with these frames.
 */
export const assistChatQuerySchema = z.object({ conversation_id: conversationIdSchema });

export const assistClientFrameSchema = z.object({
  type: z.literal('user_message'),
  text: z
    .string()
    .trim()
    .min(1, 'a message must not be empty')
    .max(assistMessageMaxChars, `a message holds at most ${assistMessageMaxChars} characters`),
});
export type AssistClientFrame = z.infer<typeof assistClientFrameSchema>;

/**
 * What the chat socket sends after the first frame. The console parses every frame with this,
 * so a frame the server did not mean (or a field of the wrong kind) is dropped, not half-read.
 */
export const assistServerFrameSchema = z.discriminatedUnion('type', [
  /** The socket is ready (the answer to the first frame). */
  z.object({ type: z.literal('ready') }),
  /** A message now stored in the conversation (the user's echo, an answer, a command, an error). */
  z.object({ type: z.literal('message'), message: assistMessageSchema }),
  /** The answer so far, while the model writes it (replaced by its `message`). */
  z.object({ type: z.literal('partial'), content: z.string() }),
  /** What the assistant is doing meanwhile ("Looking up your servers"). */
  z.object({ type: z.literal('progress'), text: z.string() }),
  /** The conversation's title changed (the first message names it). */
  z.object({ type: z.literal('title'), title: z.string().min(1) }),
  /** The turn is over: the user may write again. */
  z.object({ type: z.literal('done') }),
  /**
   * The socket's own problem: a refusal (then the socket closes with 1008), a bad frame or one
   * sent while a turn runs (the turn goes on), or a turn that failed (`done` follows).
   */
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type AssistServerFrame = z.infer<typeof assistServerFrameSchema>;

/**
 * The command socket (`command/{clusterId}/execute?params=`): runs a command the user saw, as
 * the login, on each server, and streams what each prints.
 */
export const assistExecuteParamsSchema = z.object({
  conversation_id: conversationIdSchema,
  execution_id: z.uuid('must be an execution id'),
  command: z
    .string()
    .trim()
    .min(1, 'name the command to run')
    .max(4096, 'a command holds at most 4096 characters'),
  login: z.string().trim().min(1, 'name the login to run it as').max(256),
  node_ids: z
    .array(z.string().min(1).max(256))
    .min(1, 'choose at least one server')
    .max(assistCommandMaxNodes, `at most ${assistCommandMaxNodes} servers at once`),
});
export type AssistExecuteParams = z.infer<typeof assistExecuteParamsSchema>;

/** What the command socket sends after the first frame (parsed by the console, as above). */
export const assistExecuteFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Output of one server's run, as it comes. */
  z.object({ type: z.literal('output'), node_id: z.string(), data: z.string() }),
  /** One server's run is over (also stored as a COMMAND_RESULT message). */
  z.object({ type: z.literal('result'), result: assistCommandResultSchema }),
  /** The model's reading of all the results (stored as COMMAND_RESULT_SUMMARY). */
  z.object({ type: z.literal('summary'), message: assistMessageSchema }),
  z.object({ type: z.literal('done') }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type AssistExecuteFrame = z.infer<typeof assistExecuteFrameSchema>;
