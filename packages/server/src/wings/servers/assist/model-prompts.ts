import {
  assistConnectionSchema,
  assistCommandResultSchema,
  assistCommandSchema,
  assistCommandSummarySchema,
  type AssistMessage,
  unifiedResourceName,
} from '@postern/contracts';
import type { ModelMessage } from './chat-model.js';

/**
 * What the model reads: its instructions, and a conversation's stored messages as chat turns.
 * Proposals and results are stored as the console shows them; here they become plain text, so a
 * stored conversation is always a valid history whatever tools a turn used.
 */

export function systemPrompt(user: string, clusterName: string): ModelMessage {
  return {
    role: 'system',
    content: [
      `You are the assistant of Postern, an access proxy. You help the user "${user}" with the servers they may reach in the cluster "${clusterName}".`,
      'Call list_servers to see those servers, their labels and the logins the user may use.',
      'Call list_resources to see the applications, databases, Kubernetes clusters and desktops they may reach. You cannot connect to those yourself: call propose_connection to show the user a card that connects to one, or tell them the postern command (such as `postern db connect NAME`).',
      'To run a shell command, call propose_command: the user sees it and decides whether to run it. Never say a command ran before you see its output.',
      'Propose only commands that fit the request; say so plainly when a command changes the server.',
      'Answer briefly, in Markdown; put commands and output in fenced code blocks.',
    ].join('\n'),
  };
}

/** The most of a conversation sent with each question: its latest messages, this many characters. */
const historyMaxChars = 48_000;
/** A result's output as the model reads it: its end, where errors and totals usually are. */
const resultMaxChars = 4000;

export function historyMessages(messages: readonly AssistMessage[]): ModelMessage[] {
  const turns: ModelMessage[] = [];
  let chars = 0;
  for (const message of [...messages].reverse()) {
    const turn = asTurn(message);
    if (!turn) continue;
    chars += turn.content?.length ?? 0;
    if (chars > historyMaxChars && turns.length > 0) break;
    turns.push(turn);
  }
  return turns.reverse();
}

function asTurn(message: AssistMessage): ModelMessage | undefined {
  switch (message.type) {
    case 'CHAT_MESSAGE_USER':
      return { role: 'user', content: message.payload };
    case 'CHAT_MESSAGE_ASSISTANT':
      return { role: 'assistant', content: message.payload };
    case 'COMMAND': {
      const proposal = parsed(assistCommandSchema, message.payload);
      if (!proposal) return undefined;
      const hosts = proposal.nodes.map((node) => node.hostname).join(', ');
      return {
        role: 'assistant',
        content: `I proposed running \`${proposal.command}\` as ${proposal.login} on ${hosts}.`,
      };
    }
    case 'COMMAND_RESULT': {
      const result = parsed(assistCommandResultSchema, message.payload);
      if (!result) return undefined;
      const outcome = result.error
        ? `it failed: ${result.error}`
        : `exit code ${result.exit_code ?? 'unknown'}`;
      const output = result.output.slice(-resultMaxChars);
      return {
        role: 'user',
        content: `Output on ${result.node_name} (${outcome}):\n\`\`\`\n${output}\n\`\`\``,
      };
    }
    case 'COMMAND_RESULT_SUMMARY': {
      const summary = parsed(assistCommandSummarySchema, message.payload);
      return summary && { role: 'assistant', content: summary.summary };
    }
    case 'CONNECTION': {
      const connection = parsed(assistConnectionSchema, message.payload);
      if (!connection) return undefined;
      const { resource } = connection;
      return {
        role: 'assistant',
        content: `I offered a card to connect to the ${resource.kind} ${unifiedResourceName(resource)}.`,
      };
    }
    case 'CHAT_MESSAGE_ERROR':
      return undefined;
  }
}

function parsed<T>(
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
  text: string,
) {
  try {
    const result = schema.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

export function titlePrompt(message: string): ModelMessage[] {
  return [
    {
      role: 'system',
      content:
        'Write a title of at most six words for a conversation that starts with the message below. Answer with the title only, without quotes.',
    },
    { role: 'user', content: message },
  ];
}

export function summaryRequest(command: string): ModelMessage {
  return {
    role: 'user',
    content: `Summarise what running \`${command}\` showed on the servers above, briefly: what it says, and anything that looks wrong.`,
  };
}
