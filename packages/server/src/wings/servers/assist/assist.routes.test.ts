import {
  apiPaths,
  assistConversationListSchema,
  assistConversationMessagesSchema,
  assistDefaultTitle,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { FakeChatModel } from './fake-chat-model.testkit.js';

// The assistant's conversations through the API (docs/assist.md): each user's own, behind the
// `assistant` rule, with a fake chat API standing in for the model (none can run here).

const fake = new FakeChatModel(() => ({ text: '"Disk usage on the web servers."' }));
let app: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let auditor: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp({ assist: await fake.startForAssist() });
  // The preset `access` role carries the assistant's rule; `auditor` does not.
  alice = await app.signIn(['access'], 'alice');
  bob = await app.signIn(['access'], 'bob');
  auditor = await app.signIn(['auditor'], 'audrey');
});
afterAll(async () => {
  await app?.close();
  await fake.stop();
});

type Method = 'GET' | 'POST' | 'DELETE';
const call = (method: Method, url: string, headers?: Record<string, string>, payload?: object) =>
  app.server.inject({
    method,
    url,
    ...(headers ? { headers } : {}),
    ...(payload ? { payload } : {}),
  });

const newConversation = async (headers = alice) => {
  const res = await call('POST', apiPaths.assistConversations, headers, {});
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { id: string }).id;
};

describe('assistant conversations', () => {
  it('creates, lists, renames and deletes the caller’s own conversations', async () => {
    const first = await newConversation();
    app.clock.advance(1000);
    const second = await newConversation();
    const listed = assistConversationListSchema.parse(
      (await call('GET', apiPaths.assistConversations, alice)).json(),
    );
    // Newest first, each with the title it has until its first message names it.
    expect(listed.conversations.map((c) => [c.id, c.title])).toEqual([
      [second, assistDefaultTitle],
      [first, assistDefaultTitle],
    ]);

    const renamed = await call('POST', apiPaths.assistConversationTitle(first), alice, {
      title: '  Disk space  ',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const after = assistConversationListSchema.parse(
      (await call('GET', apiPaths.assistConversations, alice)).json(),
    );
    expect(after.conversations.find((c) => c.id === first)?.title).toBe('Disk space');

    const messages = await call('GET', apiPaths.assistConversation(first), alice);
    expect(assistConversationMessagesSchema.parse(messages.json())).toEqual({ messages: [] });

    expect((await call('DELETE', apiPaths.assistConversation(first), alice)).statusCode).toBe(200);
    expect((await call('GET', apiPaths.assistConversation(first), alice)).statusCode).toBe(404);
    const left = assistConversationListSchema.parse(
      (await call('GET', apiPaths.assistConversations, alice)).json(),
    );
    expect(left.conversations.map((c) => c.id)).toEqual([second]);
  });

  it('never shows one user’s conversation to another, not even its existence', async () => {
    const id = await newConversation(alice);
    expect((await call('GET', apiPaths.assistConversations, bob)).json()).toEqual({
      conversations: [],
    });
    for (const [method, url, payload] of [
      ['GET', apiPaths.assistConversation(id)],
      ['DELETE', apiPaths.assistConversation(id)],
      ['POST', apiPaths.assistConversationTitle(id), { title: 'mine now' }],
    ] as const) {
      const res = await call(method, url, bob, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().message).toBe(`conversation ${id} is not found`);
    }
    // Still there for its owner.
    expect((await call('GET', apiPaths.assistConversation(id), alice)).statusCode).toBe(200);
  });

  it('makes a title from a first message with the model, and audits what it cost', async () => {
    const res = await call('POST', apiPaths.assistTitleSummary, alice, {
      message: 'which web servers are low on disk?',
    });
    expect(res.statusCode, res.body).toBe(200);
    // The model's quotes and full stop are taken off.
    expect(res.json()).toEqual({ title: 'Disk usage on the web servers' });
    expect(fake.requests.at(-1)!.messages.at(-1)).toEqual({
      role: 'user',
      content: 'which web servers are low on disk?',
    });
    expect(await auditEventsOf(app, 'T68000I')).toContainEqual(
      expect.objectContaining({
        user: 'alice',
        completion_kind: 'title',
        model: 'fake-model',
        total_tokens: 49,
      }),
    );
  });

  it('refuses bad input with the field’s reason', async () => {
    const id = await newConversation();
    const blank = await call('POST', apiPaths.assistConversationTitle(id), alice, { title: ' ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toContain('a title must not be empty');
    const long = await call('POST', apiPaths.assistConversationTitle(id), alice, {
      title: 'x'.repeat(121),
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().message).toContain('at most 120 characters');
    const empty = await call('POST', apiPaths.assistTitleSummary, alice, {});
    expect(empty.statusCode).toBe(400);
  });

  it('answers 401 without a session and 403 without the assistant rule, on every route', async () => {
    const id = await newConversation();
    const routes = [
      ['GET', apiPaths.assistConversations],
      ['POST', apiPaths.assistConversations, {}],
      ['GET', apiPaths.assistConversation(id)],
      ['DELETE', apiPaths.assistConversation(id)],
      ['POST', apiPaths.assistConversationTitle(id), { title: 't' }],
      ['POST', apiPaths.assistTitleSummary, { message: 'm' }],
    ] as const;
    for (const [method, url, payload] of routes) {
      expect((await call(method, url, undefined, payload)).statusCode, `${method} ${url}`).toBe(
        401,
      );
      const denied = await call(method, url, auditor, payload);
      expect(denied.statusCode, `${method} ${url}`).toBe(403);
      expect(denied.json().message).toMatch(/^access denied: \w+ on assist is not allowed$/);
    }
  });
});

describe('assistant without a model', () => {
  it('says it is not set up, and the console is told it is off', async () => {
    const off = await createTestApp();
    try {
      const headers = await off.signIn(['access'], 'alice');
      const res = await off.server.inject({
        method: 'GET',
        url: apiPaths.assistConversations,
        headers,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toContain('the assistant is not set up on this cluster');
      const config = await off.server.inject({ method: 'GET', url: '/web/config.js' });
      expect(config.body).toContain('"assistEnabled":false');
      const on = await app.server.inject({ method: 'GET', url: '/web/config.js' });
      expect(on.body).toContain('"assistEnabled":true');
    } finally {
      await off.close();
    }
  });
});
