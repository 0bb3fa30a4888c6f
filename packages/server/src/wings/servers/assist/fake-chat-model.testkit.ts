import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AssistConfig } from '../../../config/config.js';
import type { ModelMessage, ModelTool } from './chat-model.js';

/**
 * A FAKE of an OpenAI-compatible chat API, for tests: no language model can run here, so this
 * answers `POST /v1/chat/completions` with streamed server-sent events as a real one does
 * (text in pieces, tool calls in pieces, usage last), following a script the test writes.
 */
export interface FakeTurn {
  text?: string;
  toolCalls?: { name: string; arguments: object }[];
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
}

export interface FakeRequest {
  model: string;
  messages: ModelMessage[];
  tools: ModelTool[];
  authorization: string | undefined;
}

export type FakeScript = (request: FakeRequest) => FakeTurn;

export class FakeChatModel {
  readonly requests: FakeRequest[] = [];
  private server: Server | undefined;

  constructor(public script: FakeScript) {}

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      void this.answer(req).then(({ status, body }) => {
        if (status !== 200) {
          res.writeHead(status, { 'content-type': 'application/json' });
          return res.end(body);
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(body);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  /**
   * Starts the fake and answers the `assist` config that points at it (model `fake-model`, no
   * token), for `createTestApp({assist})`; `rateLimit` is the app's default unless given.
   */
  async startForAssist(
    extra: Partial<Pick<AssistConfig, 'apiToken' | 'rateLimit'>> = {},
  ): Promise<Omit<AssistConfig, 'rateLimit'> & Partial<Pick<AssistConfig, 'rateLimit'>>> {
    return { apiUrl: await this.start(), apiToken: undefined, model: 'fake-model', ...extra };
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The last request's messages of one role. */
  lastMessages(role: ModelMessage['role']): ModelMessage[] {
    return this.requests.at(-1)?.messages.filter((m) => m.role === role) ?? [];
  }

  private async answer(req: IncomingMessage): Promise<{ status: number; body: string }> {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return { status: 404, body: JSON.stringify({ error: { message: 'no such path' } }) };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model: string;
      messages: ModelMessage[];
      tools?: ModelTool[];
    };
    const request: FakeRequest = {
      model: parsed.model,
      messages: parsed.messages,
      tools: parsed.tools ?? [],
      authorization: req.headers.authorization,
    };
    this.requests.push(request);
    const turn = this.script(request);
    if (turn.status) {
      return { status: turn.status, body: JSON.stringify({ error: { message: 'fake refusal' } }) };
    }
    return { status: 200, body: sse(turn) };
  }
}

/** The turn as a stream: text in pieces of 7 characters, each call's arguments in two pieces. */
function sse(turn: FakeTurn): string {
  const events: object[] = [];
  const text = turn.text ?? '';
  for (let at = 0; at < text.length; at += 7) {
    events.push({ choices: [{ index: 0, delta: { content: text.slice(at, at + 7) } }] });
  }
  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    const id = `call_${index}`;
    const name = call.name;
    events.push({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index, id, function: { name, arguments: args.slice(0, half) } }],
          },
        },
      ],
    });
    events.push({
      choices: [
        { index: 0, delta: { tool_calls: [{ index, function: { arguments: args.slice(half) } }] } },
      ],
    });
  });
  events.push({
    choices: [],
    usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
  });
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n';
}
