import {
  assistConnectionSchema,
  assistCommandResultSchema,
  assistCommandSchema,
  assistCommandSummarySchema,
  type AssistCommand,
  type AssistCommandResult,
  type AssistCommandSummary,
  type AssistConnection,
  type AssistMessage,
} from '@postern/contracts';

/** A stored message as the page shows it: its payload read by its type. */
export type MessageItem =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'command'; command: AssistCommand }
  | { kind: 'result'; result: AssistCommandResult }
  | { kind: 'summary'; summary: AssistCommandSummary }
  | { kind: 'connection'; connection: AssistConnection }
  /** A payload that does not read as its type says: shown as it is rather than lost. */
  | { kind: 'unreadable'; text: string };

interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

function parsePayload<T>(schema: Schema<T>, payload: string): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(payload));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function messageItem(message: AssistMessage): MessageItem {
  const { type, payload } = message;
  const unreadable: MessageItem = { kind: 'unreadable', text: payload };
  switch (type) {
    case 'CHAT_MESSAGE_USER':
      return { kind: 'user', text: payload };
    case 'CHAT_MESSAGE_ASSISTANT':
      return { kind: 'assistant', text: payload };
    case 'CHAT_MESSAGE_ERROR':
      return { kind: 'error', text: payload };
    case 'COMMAND': {
      const command = parsePayload(assistCommandSchema, payload);
      return command ? { kind: 'command', command } : unreadable;
    }
    case 'COMMAND_RESULT': {
      const result = parsePayload(assistCommandResultSchema, payload);
      return result ? { kind: 'result', result } : unreadable;
    }
    case 'COMMAND_RESULT_SUMMARY': {
      const summary = parsePayload(assistCommandSummarySchema, payload);
      return summary ? { kind: 'summary', summary } : unreadable;
    }
    case 'CONNECTION': {
      const connection = parsePayload(assistConnectionSchema, payload);
      return connection ? { kind: 'connection', connection } : unreadable;
    }
    default:
      return unreadable;
  }
}
