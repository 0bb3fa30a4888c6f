import {
  apiPaths,
  assistCommandResultSchema,
  assistCommandSchema,
  assistResultMaxChars,
  type AssistExecuteParams,
} from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { FakeChatModel, type FakeRequest, type FakeTurn } from './fake-chat-model.testkit.js';

// The assistant end to end over its sockets: a fake chat API (no model can run here) that looks
// up servers and proposes a command; a real OpenSSH server that runs it as the user's recorded
// session; RBAC, locks and audit as a terminal has them.

const admin = hostActor('test');
let script: (request: FakeRequest) => FakeTurn = () => ({ text: 'ok' });
const fake = new FakeChatModel((request) => script(request));
let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let baseUrl: string;
let nodeId: string;
let hiddenId: string;
let alice: Record<string, string>;
let auditor: Record<string, string>;

const role = (name: string, allow: object) =>
  app.services.roles.create(
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
    admin,
  );

beforeAll(async () => {
  app = await createTestApp({ assist: await fake.startForAssist({ apiToken: 'sk-fake' }) });
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  nodeId = node.metadata.name;
  // A server alice may not see: the assistant must neither list it nor run anything on it.
  const hidden = await app.services.inventory.addOpenSsh(
    { name: 'prod-db', addr: '127.0.0.1:9', labels: { env: 'prod' } },
    admin,
  );
  hiddenId = hidden.metadata.name;
  await role('test-ops', {
    node_labels: { env: 'test' },
    logins: ['root'],
    rules: [{ resources: ['assistant'], verbs: ['*'] }],
  });
  alice = await app.signIn(['test-ops'], 'alice');
  auditor = await app.signIn(['auditor'], 'audrey');
});
afterAll(async () => {
  await app?.close();
  await sshd?.stop();
  await fake.stop();
});

interface JsonSocket {
  frames: Record<string, unknown>[];
  send(frame: object): void;
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** A socket signed in as a browser is: the upgrade's cookie, then the bearer as first frame. */
async function openSocket(path: string, headers: Record<string, string>, token?: string) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`, {
    headers: { cookie: headers.cookie ?? '' },
  });
  const frames: Record<string, unknown>[] = [];
  let seen = 0;
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    frames.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ token: token ?? headers.authorization!.replace(/^Bearer /, '') }));
  const client: JsonSocket = {
    frames,
    send: (frame) => socket.send(JSON.stringify(frame)),
    // The next frame of the type after those already taken, in order.
    next: async (type, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = frames.findIndex((frame, at) => at >= seen && frame.type === type);
        if (index >= 0) {
          seen = index + 1;
          return frames[index]!;
        }
        if (Date.now() > deadline) {
          throw new Error(`no ${type} frame; got ${JSON.stringify(frames)}`);
        }
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 200);
        });
      }
    },
    closed,
    close: () => socket.close(),
  };
  return client;
}

const newConversation = async (headers = alice) => {
  const res = await app.server.inject({
    method: 'POST',
    url: apiPaths.assistConversations,
    headers,
    payload: {},
  });
  return (res.json() as { id: string }).id;
};
const chat = (id: string, headers = alice, token?: string) =>
  openSocket(`${apiPaths.assistChat('test-cluster')}?conversation_id=${id}`, headers, token);
const execute = (params: AssistExecuteParams, headers = alice) =>
  openSocket(
    `${apiPaths.assistExecute('test-cluster')}?params=${encodeURIComponent(JSON.stringify(params))}`,
    headers,
  );
const messagesOf = async (id: string) =>
  (
    await app.server.inject({ method: 'GET', url: apiPaths.assistConversation(id), headers: alice })
  ).json().messages as { type: string; payload: string }[];

const isTitleRequest = (request: FakeRequest) =>
  request.tools.length === 0 && String(request.messages[0]?.content).startsWith('Write a title');
const lastOf = (request: FakeRequest) => request.messages.at(-1)!;

/** The model as the tests script it: a title; a lookup, then a proposal; a summary. */
function opsModel(request: FakeRequest): FakeTurn {
  if (isTitleRequest(request)) return { text: 'Greeting the test server' };
  const last = lastOf(request);
  if (last.role === 'user' && String(last.content).startsWith('Summarise')) {
    return { text: 'sshd-host answered postern-42.' };
  }
  if (last.role === 'user') {
    return { text: 'Let me look.', toolCalls: [{ name: 'list_servers', arguments: {} }] };
  }
  return {
    toolCalls: [
      {
        name: 'propose_command',
        arguments: { command: 'echo postern-$((40+2))', servers: ['sshd-host'], login: 'root' },
      },
    ],
  };
}

describe('the chat socket', () => {
  it('looks up the servers the user may reach and proposes a command, stored as it goes', async () => {
    script = opsModel;
    const id = await newConversation();
    const socket = await chat(id);
    await socket.next('ready');
    socket.send({ type: 'user_message', text: 'say hello from the test server' });

    expect((await socket.next('message')).message).toMatchObject({
      type: 'CHAT_MESSAGE_USER',
      payload: 'say hello from the test server',
    });
    await socket.next('done');
    const types = socket.frames.map((frame) => frame.type);
    expect(types).toContain('partial');
    expect(types).toContain('progress');
    expect(socket.frames).toContainEqual({ type: 'title', title: 'Greeting the test server' });
    const stored = await messagesOf(id);
    expect(stored.map((m) => m.type)).toEqual([
      'CHAT_MESSAGE_USER',
      'CHAT_MESSAGE_ASSISTANT',
      'COMMAND',
    ]);
    expect(assistCommandSchema.parse(JSON.parse(stored[2]!.payload))).toEqual({
      command: 'echo postern-$((40+2))',
      login: 'root',
      nodes: [{ id: nodeId, hostname: 'sshd-host' }],
      logins: ['root'],
    });

    // What the model was told by list_servers: the visible server with its logins, never the
    // hidden one.
    const lookup = fake.requests.find((r) => r.messages.some((m) => m.role === 'tool'));
    const answer = lookup!.messages.find((m) => m.role === 'tool')!.content!;
    expect(JSON.parse(answer)).toEqual({
      servers: [{ id: nodeId, hostname: 'sshd-host', labels: { env: 'test' }, logins: ['root'] }],
    });
    expect(answer).not.toContain('prod-db');
    expect(fake.requests.at(-1)!.authorization).toBe('Bearer sk-fake');

    const completions = (await auditEventsOf(app, 'T68000I')).filter(
      (event) => event.conversation_id === id,
    );
    expect(completions.map((event) => event.completion_kind).sort()).toEqual(['chat', 'title']);
    socket.close();
  });

  it('ends the turn with an error the user sees when the model fails, and goes on after', async () => {
    const id = await newConversation();
    const socket = await chat(id);
    await socket.next('ready');
    script = (request) => (isTitleRequest(request) ? { text: 'Title' } : { status: 503 });
    socket.send({ type: 'user_message', text: 'anyone there?' });
    await socket.next('done');
    script = (request) => (isTitleRequest(request) ? { text: 'Title' } : { text: 'Back again.' });
    socket.send({ type: 'user_message', text: 'and now?' });
    await socket.next('done');
    const stored = await messagesOf(id);
    expect(stored.map((m) => [m.type, m.payload])).toEqual([
      ['CHAT_MESSAGE_USER', 'anyone there?'],
      ['CHAT_MESSAGE_ERROR', "the assistant's model refused: 503 (fake refusal)"],
      ['CHAT_MESSAGE_USER', 'and now?'],
      ['CHAT_MESSAGE_ASSISTANT', 'Back again.'],
    ]);
    // The model read the conversation without the error, and with the first question.
    expect(fake.requests.at(-1)!.messages.slice(1)).toEqual([
      { role: 'user', content: 'anyone there?' },
      { role: 'user', content: 'and now?' },
    ]);
    socket.close();
  });

  it('refuses a bad token, a user without the rule and someone else’s conversation', async () => {
    const id = await newConversation();
    const forged = await chat(id, alice, 'not-the-bearer');
    await forged.next('create_session_response');
    expect((await forged.closed).code).toBe(1008);

    const denied = await chat(id, auditor);
    expect((await denied.next('error')).message).toBe(
      'access denied: create on assist is not allowed',
    );
    expect((await denied.closed).code).toBe(1008);

    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'assist-only' },
        spec: { allow: { rules: [{ resources: ['assistant'], verbs: ['*'] }] } },
      }),
      admin,
    );
    const bob = await app.signIn(['assist-only'], 'bob');
    const foreign = await chat(id, bob);
    expect((await foreign.next('error')).message).toBe(`conversation ${id} is not found`);
  });

  it('ends the conversation’s socket at the next message once the user is locked', async () => {
    script = () => ({ text: 'hi' });
    const id = await newConversation();
    const socket = await chat(id);
    await socket.next('ready');
    const lock = await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident 7' },
      admin,
    );
    try {
      socket.send({ type: 'user_message', text: 'hello?' });
      expect((await socket.next('error')).message).toBe('locked: incident 7');
      expect((await socket.closed).code).toBe(1008);
    } finally {
      await app.services.locks.remove(lock.metadata.name, admin);
    }
    // Nothing of the refused message was kept (the lock also refuses alice's API calls).
    expect(await messagesOf(id)).toEqual([]);
  });
});

describe('running a proposed command', () => {
  const params = (id: string, over: Partial<AssistExecuteParams> = {}): AssistExecuteParams => ({
    conversation_id: id,
    execution_id: randomUUID(),
    command: 'echo postern-$((40+2))',
    login: 'root',
    node_ids: [nodeId],
    ...over,
  });

  it('runs it as the user’s recorded session, streams the output, stores it and summarises it', async () => {
    script = opsModel;
    const id = await newConversation();
    const run = params(id);
    const socket = await execute(run);
    await socket.next('ready');
    const output = await socket.next('output');
    expect(output.node_id).toBe(nodeId);
    const result = assistCommandResultSchema.parse((await socket.next('result')).result);
    expect(result).toMatchObject({
      execution_id: run.execution_id,
      node_id: nodeId,
      node_name: 'sshd-host',
      exit_code: 0,
    });
    expect(result.truncated).toBeUndefined();
    // The terminal's carriage returns and escapes are gone; the output is the command's.
    expect(result.output.trim()).toBe('postern-42');
    expect((await socket.next('summary')).message).toMatchObject({
      type: 'COMMAND_RESULT_SUMMARY',
    });
    await socket.next('done');
    expect((await socket.closed).code).toBe(1000);

    const stored = await messagesOf(id);
    expect(stored.map((m) => m.type)).toEqual(['COMMAND_RESULT', 'COMMAND_RESULT_SUMMARY']);
    expect(JSON.parse(stored[1]!.payload)).toEqual({
      execution_id: run.execution_id,
      command: run.command,
      summary: 'sshd-host answered postern-42.',
    });
    // The model read the output before it summarised.
    const summaryRequest = fake.requests.at(-1)!.messages;
    expect(summaryRequest.at(-2)!.content).toContain('postern-42');

    // A session of alice's like any other: its start and end audited with the command.
    const started = (await auditEventsOf(app, 'T2000I')).find(
      (event) => event.sid === result.session_id,
    );
    expect(started).toMatchObject({ user: 'alice', login: 'root', server_id: nodeId });
    const ended = (await auditEventsOf(app, 'T2004I')).find(
      (event) => event.sid === result.session_id,
    );
    expect(ended).toBeDefined();
  });

  it('keeps the end of a long output, and says it was cut', async () => {
    script = () => ({ text: 'counted' });
    const id = await newConversation();
    const socket = await execute(params(id, { command: 'seq 1 6000' }));
    const result = assistCommandResultSchema.parse((await socket.next('result')).result);
    expect(result.exit_code).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBe(assistResultMaxChars);
    expect(result.output.endsWith('5999\n6000\n')).toBe(true);
    await socket.next('done');
  });

  it('refuses, per server, what the user may not do there, as a terminal would', async () => {
    script = () => ({ text: 'nothing to see' });
    const id = await newConversation();
    const socket = await execute(params(id, { login: 'postgres', node_ids: [nodeId, hiddenId] }));
    await socket.next('ready');
    const first = assistCommandResultSchema.parse((await socket.next('result')).result);
    const second = assistCommandResultSchema.parse((await socket.next('result')).result);
    const byNode = Object.fromEntries([first, second].map((r) => [r.node_id, r]));
    expect(byNode[nodeId]!.error).toMatch(/postgres/);
    expect(byNode[nodeId]!.session_id).toBeUndefined();
    // The hidden server is "not found", as everywhere: its name is not confirmed.
    expect(byNode[hiddenId]!.error).toBe(`server "${hiddenId}" is not found`);
    const refusals = (await auditEventsOf(app, 'T1006W')).filter((e) => e.user === 'alice');
    expect(refusals.map((e) => e.server_id)).toEqual(expect.arrayContaining([nodeId, hiddenId]));
    await socket.next('done');
  });

  it('refuses bad params and a locked user before anything runs', async () => {
    const id = await newConversation();
    const bad = await execute({ ...params(id), node_ids: [] });
    expect((await bad.next('error')).message).toBe('node_ids: choose at least one server');
    expect((await bad.closed).code).toBe(1008);

    const lock = await app.services.locks.create({ targets: { user: 'alice' } }, admin);
    try {
      const locked = await execute(params(id));
      expect((await locked.next('error')).message).toMatch(/^locked: /);
    } finally {
      await app.services.locks.remove(lock.metadata.name, admin);
    }
    expect(await messagesOf(id)).toEqual([]);
  });
});
