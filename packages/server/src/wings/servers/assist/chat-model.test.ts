import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatModel, ChatModelError } from './chat-model.js';
import { FakeChatModel, type FakeTurn } from './fake-chat-model.testkit.js';

// The assistant's client of an OpenAI-compatible chat API, against a fake of one (no model can
// run here): streamed text and tool calls put together, and each failure told plainly.

let next: FakeTurn = {};
const fake = new FakeChatModel(() => next);
let apiUrl: string;

beforeAll(async () => {
  apiUrl = await fake.start();
});
afterAll(() => fake.stop());

const user = (content: string) => ({ role: 'user' as const, content });

describe('chat model client', () => {
  it('streams the answer as it is written and returns it whole, with its usage', async () => {
    next = { text: 'The disk on web-1 is 93% full; /var/log holds most of it.' };
    const model = new ChatModel({ apiUrl, apiToken: 'sk-test', model: 'small-model' });
    const seen: string[] = [];
    const reply = await model.complete([user('how full is web-1?')], {
      onText: (soFar) => seen.push(soFar),
    });
    expect(reply.content).toBe(next.text);
    expect(reply.toolCalls).toEqual([]);
    expect(reply.usage.total_tokens).toBe(49);
    // Seven characters at a time: each call gets everything so far.
    expect(seen.length).toBe(Math.ceil(next.text!.length / 7));
    expect(seen[0]).toBe('The dis');
    expect(seen.at(-1)).toBe(next.text);
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ model: 'small-model', authorization: 'Bearer sk-test' });
    expect(request.messages).toEqual([user('how full is web-1?')]);
  });

  it('puts tool calls together from their pieces', async () => {
    next = {
      toolCalls: [
        { name: 'list_servers', arguments: { search: 'web' } },
        { name: 'propose_command', arguments: { command: 'df -h', servers: ['web-1'] } },
      ],
    };
    const model = new ChatModel({ apiUrl, model: 'm' });
    const tool = {
      type: 'function' as const,
      function: { name: 'x', description: 'x', parameters: {} },
    };
    const reply = await model.complete([user('check the disks')], { tools: [tool] });
    expect(
      reply.toolCalls.map((call) => [
        call.id,
        call.function.name,
        JSON.parse(call.function.arguments),
      ]),
    ).toEqual([
      ['call_0', 'list_servers', { search: 'web' }],
      ['call_1', 'propose_command', { command: 'df -h', servers: ['web-1'] }],
    ]);
    expect(fake.requests.at(-1)!.tools).toEqual([tool]);
    // No token configured: none is sent.
    expect(fake.requests.at(-1)!.authorization).toBeUndefined();
  });

  it('says the model refused, with its status and message', async () => {
    next = { status: 429 };
    const model = new ChatModel({ apiUrl, model: 'm' });
    const failure = model.complete([user('hello')]);
    await expect(failure).rejects.toThrow(ChatModelError);
    await expect(failure).rejects.toThrow("the assistant's model refused: 429 (fake refusal)");
  });

  it('says the model cannot be reached when nothing listens there', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const model = new ChatModel({ apiUrl: `http://127.0.0.1:${closedPort}/v1`, model: 'm' });
    await expect(model.complete([user('hello')])).rejects.toThrow(
      "the assistant's model cannot be reached: ECONNREFUSED",
    );
  });

  it('gives up on a model that takes too long', async () => {
    const silent = createServer((socket) => socket.on('data', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const model = new ChatModel({
        apiUrl: `http://127.0.0.1:${port}/v1`,
        model: 'm',
        timeoutMs: 200,
      });
      await expect(model.complete([user('hello')])).rejects.toThrow('it took too long');
    } finally {
      silent.close();
    }
  });
});
