/**
 * The language model behind the assistant: any chat API that speaks OpenAI's
 * `POST {api_url}/chat/completions` with streamed answers and tools (OpenAI itself, Azure's
 * OpenAI-compatible endpoint, Ollama, vLLM, LocalAI). The admin names it in `assist.openai`.
 */

export interface ModelMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ModelToolCall[];
  tool_call_id?: string;
}

export interface ModelToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ModelReply {
  content: string;
  toolCalls: ModelToolCall[];
  usage: ModelUsage;
}

export interface ChatModelOptions {
  apiUrl: string;
  apiToken?: string | undefined;
  model: string;
  /** How long one answer may take, first byte to last. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The model could not answer: unreachable, refused, or answered something unreadable. */
export class ChatModelError extends Error {}

const noUsage: ModelUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export class ChatModel {
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: ChatModelOptions) {
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  get model(): string {
    return this.options.model;
  }

  /**
   * One answer to the conversation so far, streamed: `onText` gets the text written so far each
   * time more arrives. Tool calls come whole, at the end.
   */
  async complete(
    messages: ModelMessage[],
    options: { tools?: ModelTool[]; onText?: (soFar: string) => void; signal?: AbortSignal } = {},
  ): Promise<ModelReply> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const body = {
      model: this.options.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(options.tools?.length ? { tools: options.tools } : {}),
    };
    let response: Response;
    try {
      response = await this.fetch(`${this.options.apiUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...(this.options.apiToken ? { authorization: `Bearer ${this.options.apiToken}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw new ChatModelError(`the assistant's model cannot be reached: ${reason(error)}`);
    }
    if (!response.ok || !response.body) {
      const detail = await errorDetail(response);
      throw new ChatModelError(`the assistant's model refused: ${response.status}${detail}`);
    }
    try {
      return await readStream(response.body, options.onText);
    } catch (error) {
      if (error instanceof ChatModelError) throw error;
      throw new ChatModelError(`the assistant's model stopped answering: ${reason(error)}`);
    }
  }
}

function reason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'it took too long';
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/** The API's own message, when it sent one (`{error: {message}}`), cut short. */
async function errorDetail(response: Response): Promise<string> {
  try {
    const json = (await response.json()) as { error?: { message?: unknown } };
    const message = json.error?.message;
    return typeof message === 'string' ? ` (${message.slice(0, 200)})` : '';
  } catch {
    return '';
  }
}

interface StreamChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: {
        index: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
  }[];
  usage?: ModelUsage | null;
  error?: { message?: string };
}

/** Reads server-sent events (`data: {…}` lines, `data: [DONE]` last) into one reply. */
async function readStream(
  body: ReadableStream<Uint8Array>,
  onText?: (soFar: string) => void,
): Promise<ModelReply> {
  let content = '';
  let usage = noUsage;
  const calls: ModelToolCall[] = [];
  const decoder = new TextDecoder();
  let buffered = '';
  const take = (line: string) => {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') return;
    let chunk: StreamChunk;
    try {
      chunk = JSON.parse(data) as StreamChunk;
    } catch {
      throw new ChatModelError("the assistant's model sent something that is not JSON");
    }
    if (chunk.error) {
      throw new ChatModelError(
        `the assistant's model failed: ${chunk.error.message ?? 'no reason'}`,
      );
    }
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    if (delta.content) {
      content += delta.content;
      onText?.(content);
    }
    for (const part of delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= {
        id: '',
        type: 'function',
        function: { name: '', arguments: '' },
      });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  };
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffered += decoder.decode(read.value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      take(buffered.slice(0, newline).replace(/\r$/, ''));
      buffered = buffered.slice(newline + 1);
    }
  }
  take(buffered + decoder.decode());
  return { content, toolCalls: calls.filter((call) => call.function.name), usage };
}
